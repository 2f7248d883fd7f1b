package processor

import (
	"context"
	"regexp"
	"sync"

	"github.com/keel-go/keel"
)

// UnsupportedFileHandlerID is the ID of [UnsupportedFileHandler].
const UnsupportedFileHandlerID = "unsupported-file-handler"

// unnamedRejection records a refusal that named no media type: every
// unreadable file is taken out.
const unnamedRejection = "*"

// mediaTypePattern finds the media type in the text of a refusal that
// does not carry it in its MediaType field, such as "file part media type
// application/zip" or "media type: application/zip".
var mediaTypePattern = regexp.MustCompile(`(?i)media type:?\s+(\S+)`)

// UnsupportedFileHandler is the default error processor that keeps a run
// going when the model refuses a file a user sent. Once a call failed
// because of a file, it takes the files the model may not read out of the
// prompt of every later call of the run, and retries once. Each such file
// becomes text at its place (see the package documentation for the
// texts):
//
//   - with a sandbox, the file's inline data (bytes or a data: URL) is
//     uploaded with [workspace.Upload]'s path scheme and the model gets
//     the "[File uploaded to the sandbox]" note with its path;
//   - with a sandbox, a file over 10 MiB ([workspace.MaxUploadSize]) or
//     with data that cannot be decoded is not uploaded, and the model gets
//     the "[File not uploaded]" note with the reason;
//   - otherwise — no sandbox, a sandbox that cannot take files, a failed
//     write, or a file given by URL or provider reference, which is never
//     downloaded — the model gets "[Attachment unavailable: NAME]".
//
// Given converters ([UnsupportedFileOptions].Converters), it also gives
// the model the file's text, labelled, after the sandbox's note or in
// place of the placeholder. Given remembered refusals
// ([UnsupportedFileOptions].Refusals), it handles a file whose type the
// model refused before at the first call, without a doomed one.
//
// Stored messages keep their files; only the prompt changes. Each file
// is uploaded, converted and reported once per run ([Recovery], with the
// refusal as its Cause), and every call of the run gets the same text for
// it.
//
// A call counts as failed because of a file when:
//
//   - the adapter refused a media type before sending
//     ([keel.UnsupportedFunctionalityError] with its MediaType, or naming
//     it in its text for an error from elsewhere) while the run holds a
//     file: a refusal of that type by name;
//   - the provider's answer names the type it cannot read
//     ([keel.APICallError].MediaType, such as Gemini's 400 "Unsupported
//     MIME type: X") while a user message holds a file of that type or a
//     file that is not an image, a PDF or text: a refusal of that type by
//     name too;
//   - the provider answered with any other [keel.APICallError] but 408,
//     409, 429, 503 and 504 (which [StreamErrorRetry] retries as they
//     are) while a user message holds a file that is not an image, a PDF
//     or text.
//
// After any of them, files of a type refused by name are taken out even
// when they are of a readable type (a PDF), and so is every file that is
// not an image, a PDF or text. An answer of 401, 403 or 404 (a bad key,
// no access, an unknown model or route) is never blamed on a file: the
// handler leaves it alone, nothing is uploaded or retried, and the error
// surfaces. The handler acts only on the run's first failure.
//
// Its state lives in the run, so one value serves any number of
// concurrent runs.
type UnsupportedFileHandler struct {
	converters FileConverter
	refusals   *RememberedRefusals
}

// UnsupportedFileOptions configure an [UnsupportedFileHandler] beyond the
// reference framework's handler, which [NewUnsupportedFileHandler] makes.
// The zero value is that handler.
type UnsupportedFileOptions struct {
	// Converters, when not nil, turn each file taken out of the prompt
	// into text the model reads (a *convert.Registry, such as
	// convert.Default()). The text comes after the sandbox's note, which
	// is unchanged, or alone when the file could not be uploaded, under a
	// label naming the file and what it holds:
	//
	//	[Text of leads.xlsx — sheet "Leads", 1,204 rows × 9 columns, as CSV]
	//
	// Text over the registry's cap (convert.Limits.MaxChars, 100,000
	// characters by default) ends with a line saying how much was left
	// out and, when the file was uploaded, where the whole file is. A
	// file no converter knows, or that fails to convert, gets the note or
	// placeholder alone. Each file is converted at most once per run.
	Converters FileConverter
	// Refusals, when not nil, remember the media types each model
	// refused, by the model's Provider and Name: at every call, a file of
	// a type the model refuses is handled as after a refusal before the
	// call is made. A refusal that names its type remembers that type;
	// a provider's answer that names none remembers each type the refused
	// request held that is not an image, a PDF or text, once the call
	// without them succeeded (a call that got no answer teaches nothing).
	// A call that succeeds with a file of a type forgets that type's
	// refusal by the model.
	Refusals *RememberedRefusals
}

// NewUnsupportedFileHandler returns the unsupported-file handler as the
// reference framework has it: no converters, nothing remembered.
func NewUnsupportedFileHandler() *UnsupportedFileHandler { return &UnsupportedFileHandler{} }

// NewUnsupportedFileHandlerWith returns an unsupported-file handler with
// opts.
func NewUnsupportedFileHandlerWith(opts UnsupportedFileOptions) *UnsupportedFileHandler {
	return &UnsupportedFileHandler{converters: opts.Converters, refusals: opts.Refusals}
}

// ID returns "unsupported-file-handler".
func (*UnsupportedFileHandler) ID() string { return UnsupportedFileHandlerID }

// unsupportedFileState is the handler's state for one run. mu is held for
// a whole rewrite, so that a file is uploaded once even if one run's
// rewrites overlap.
type unsupportedFileState struct {
	mu sync.Mutex
	// rejected holds the normalised media types refused by name, and
	// unnamedRejection for a refusal that named none.
	rejected map[string]bool
	// cause is the refusal the handler answered, told in its reports.
	cause *RecoveryCause
	// done maps a file (see fileKey) to what replaced it, so that every
	// call of the run gets the same text and the file is uploaded and
	// reported once.
	done map[string]replacement
	// texts holds each file's conversion by digest, so that a file is
	// converted once however many names it comes under.
	texts map[string]conversion
	// remembered holds the cause of each remembered type the run met.
	remembered map[string]*RecoveryCause
	// pending are the types an unnamed refusal is to remember once a call
	// without them succeeds.
	pending []pendingRefusal
}

// HandleAPIError records which files the model refused and asks for a
// retry, on the run's first failure only.
func (h *UnsupportedFileHandler) HandleAPIError(ctx context.Context, e *APIErrorEvent) (Decision, error) {
	if e == nil || e.Run == nil || e.Err == nil || e.Run.RetryCount() > 0 {
		return Decision{}, nil
	}
	c := classifyRefusal(e.Err)
	if c.notAFile {
		return Decision{}, nil
	}
	holds := func(userOnly bool, ok func(keel.FilePart) bool) bool {
		return holdsFile(e.Run.Messages, userOnly, ok) || holdsFile(e.Prompt, userOnly, ok)
	}
	var named []namedRefusal
	var cause, unnamed *RecoveryCause
	if c.http != nil {
		t := keel.NormalizeMediaType(c.http.MediaType)
		ofType := func(f keel.FilePart) bool { return keel.NormalizeMediaType(f.MediaType) == t }
		switch {
		case t != "" && (holds(true, ofType) || holds(true, unreadable)):
			cause = apiErrorCause(c.http)
			named = append(named, namedRefusal{t, cause})
		case t == "" && holds(true, unreadable):
			cause = apiErrorCause(c.http)
			unnamed = cause
		}
	}
	if len(c.named) > 0 && holds(false, anyFile) {
		cause = c.namedCause
		for _, t := range c.named {
			named = append(named, namedRefusal{t, c.namedCause})
		}
	}
	if cause == nil {
		return Decision{}, nil
	}
	st := StateOf[unsupportedFileState](e.Run, h)
	st.mu.Lock()
	if st.rejected == nil {
		st.rejected = make(map[string]bool)
	}
	for _, n := range named {
		st.rejected[n.mediaType] = true
	}
	if unnamed != nil {
		st.rejected[unnamedRejection] = true
	}
	if st.cause == nil {
		st.cause = cause
	}
	st.mu.Unlock()
	h.learn(ctx, e, st, named, unnamed)
	return Decision{Retry: true}, nil
}

// refusalClass is what an error says about files.
type refusalClass struct {
	// named are the media types SDKs refused by name; namedCause tells the
	// first.
	named      []string
	namedCause *RecoveryCause
	// http is the first provider answer whose status is no sign that the
	// same request may pass later.
	http *keel.APICallError
	// notAFile: an answer of 401, 403 or 404 is in the chain.
	notAFile bool
}

// classifyRefusal walks err's causes, at most 5 levels deep.
func classifyRefusal(err error) refusalClass {
	var c refusalClass
	walkCauses(err, fileErrorDepth, func(err error) bool {
		switch err := err.(type) {
		case *keel.UnsupportedFunctionalityError:
			if t := refusedMediaType(err); t != "" {
				c.named = append(c.named, t)
				if c.namedCause == nil {
					c.namedCause = refusalCause(err, t)
				}
			}
		case *keel.APICallError:
			switch {
			case notAFileStatus(err.StatusCode):
				c.notAFile = true
				return true
			case !asksToRetryLater(err.StatusCode) && c.http == nil:
				c.http = err
			}
		}
		return false
	})
	return c
}

// refusedMediaType returns the normalised media type an SDK refused by
// name, "" when the refusal is not about a media type. keel's adapters
// put it in the error's MediaType; the text is read only for refusals
// from elsewhere, which leave it empty.
func refusedMediaType(err *keel.UnsupportedFunctionalityError) string {
	if err.MediaType != "" {
		return keel.NormalizeMediaType(err.MediaType)
	}
	if m := mediaTypePattern.FindStringSubmatch(err.Functionality); m != nil {
		return keel.NormalizeMediaType(m[1])
	}
	return ""
}

// asksToRetryLater reports the statuses that say the same request may
// pass later, which are no sign of a refused file.
func asksToRetryLater(status int) bool {
	switch status {
	case 408, 409, 429, 503, 504:
		return true
	}
	return false
}

// notAFileStatus reports the statuses no file can cause: a bad key (401),
// no access (403), an unknown model or route (404). Taking files out
// would not help, and the caller must see the error itself.
func notAFileStatus(status int) bool {
	return status == 401 || status == 403 || status == 404
}

func anyFile(keel.FilePart) bool { return true }

func unreadable(f keel.FilePart) bool { return !keel.IsReadable(f.MediaType) }

// holdsFile reports whether msgs hold a file part that ok accepts, in any
// message or with userOnly in a user message.
func holdsFile(msgs []keel.Message, userOnly bool, ok func(keel.FilePart) bool) bool {
	for _, m := range msgs {
		if userOnly && m.Role != keel.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if f, isFile := p.(keel.FilePart); isFile && ok(f) {
				return true
			}
		}
	}
	return false
}
