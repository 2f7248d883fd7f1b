package processor

import (
	"context"
	"regexp"
	"sync"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/workspace"
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
// going when the model refuses a file a user sent: it takes the file out
// of the prompt, and the model is called once more. Its rules, each with
// the function that keeps it:
//
//   - Every file goes to the model unchanged; which types a model reads
//     is not guessed up front: [UnsupportedFileHandler.RewriteLLMRequest]
//     leaves a prompt alone until a call of the run was refused.
//   - A call fails because of a file when the provider's SDK refuses the
//     file type before the request goes out, with a
//     [keel.UnsupportedFunctionalityError] that names the media type:
//     classifyRefusal, refusedMediaType.
//   - Or when the provider rejects the request in its HTTP response:
//     any API error counts while the request holds a file that is not an
//     image, a PDF or text (blame, unreadable); a status that asks to try
//     again later (408, 409, 429, 503, 504) does not, and is left to
//     [StreamErrorRetry] (asksToRetryLater).
//   - On the first refusal, the refused file and every other file that is
//     not an image, a PDF or text leave the prompt: blame, selects. A
//     refused type is one the refusal names (an SDK's, or a provider's
//     answer such as Gemini's 400 "Unsupported MIME type: X", read into
//     [keel.APICallError].MediaType), which leaves even when readable.
//   - The call is tried again once, on the run's first failure only, and
//     if it fails again the error surfaces:
//     [UnsupportedFileHandler.HandleAPIError] (Decision{Retry: true}).
//   - With a sandbox, each file is uploaded the way [FileUpload] does it
//     and the model gets a note with the sandbox path: sandboxOutcome,
//     with the upload-and-note step both share (promptFile.upload,
//     uploadNote). The sandbox is the one of the step, the agent's tools'
//     own ([Run.Sandbox]).
//   - Without a sandbox, or when the upload fails, the model gets the
//     placeholder "[Attachment unavailable: NAME]", as does a file given
//     by URL or provider reference, never downloaded; a file sent without
//     a name shows its type instead: sandboxOutcome, placeholder,
//     displayName.
//   - Files over 10 MiB ([workspace.MaxUploadSize]) are not uploaded and
//     get a note with the reason: promptFile.check, notUploadedNote.
//   - Only the prompt sent to the model changes; the stored message keeps
//     the file: replaceFiles gives a rewritten message new parts.
//   - Once a call was refused for a file, every following call of the run
//     gets the same text for it, and a thread that stores a refused file
//     works again on its next turn, as the file is handled the same way
//     on every turn: replaced.once, selects over the whole prompt.
//   - A refusal unrelated to a file, on a request without one, is left
//     alone: blame finds nothing to blame.
//   - It is an error processor of every agent by default, after
//     [PrefillErrorHandler] and before [StreamErrorRetry]
//     ([DefaultErrorProcessors]), and takes no parameters
//     ([NewUnsupportedFileHandler]).
//
// keel's extensions, each in a file of its own, given by
// [UnsupportedFileOptions] unless said otherwise:
//
//   - notafile.go: an answer of 401, 403 or 404 (a bad key, no access, an
//     unknown model or route) is never blamed on a file; it surfaces.
//     Always on.
//   - convertfile.go, imagefile.go, imagedescribe.go: the file's text
//     (Converters), or a refused image as the model can read it, or what
//     can be said of it (Images, DescribeWith), after the note or in
//     place of the placeholder.
//   - refusals.go, refusallearning.go: refusals remembered across runs
//     (Refusals), so that a file of a type the model refused before is
//     handled at the first call, without a doomed one.
//   - providerfiles.go, filelimits.go: a file too large to go inline goes
//     by reference to the provider's file store (ProviderFiles).
//   - BlameReadableFiles: an unnamed refusal of a request whose files are
//     all readable is blamed on them too (blame).
//
// See the package documentation for the texts the model gets. Each file
// is uploaded, converted and reported once per run ([Recovery], with the
// refusal as its Cause). Its state lives in the run, so one value serves
// any number of concurrent runs.
type UnsupportedFileHandler struct {
	converters    FileConverter
	images        ImageConverter
	describer     ImageDescriber
	refusals      *RememberedRefusals
	blameReadable bool
	providerFiles memory.ProviderFiles
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
	// Images, when not nil, give the model a refused image in a form it
	// can use (an *imageconv.Converter, such as imageconv.Default()): an
	// image in a format the model does not take (HEIC, TIFF, BMP, AVIF,
	// SVG) goes to it again as a PNG or JPEG within its provider's
	// limits, in the refused one's place and after a line saying what
	// was done; an image refused by a model that reads none (every image
	// type refused) gets, after the sandbox's note, what can be said of
	// it without seeing it: format, size, the date it was taken and the
	// camera, never where. Each image is converted once per run.
	Images ImageConverter
	// DescribeWith, when not nil and Images is set, adds to what is said
	// of an image refused by a model that reads none a description of
	// it and the text in it, written by a vision model (a
	// *ModelDescriber; keel.yaml's files.describeWith). A description
	// that fails is left out, with a warning, and the turn goes on.
	DescribeWith ImageDescriber
	// BlameReadableFiles goes beyond the reference framework's rule, by
	// which an error answer that names no file is blamed only on files
	// that are not an image, a PDF or text. With it, such an answer to a
	// request whose files are all images, PDFs or text (a model without
	// vision that says so in words keel does not know, a page limit it
	// does not state) is tried once more without every file of the
	// prompt, handled as refused; their types are remembered only if
	// that call succeeds. Never for 401, 403, 404, 408, 409, 429, 503,
	// 504, no answer at all, or an answer its adapter typed as no file's
	// fault ([keel.FaultNotFile]: a bad key, a quota). It also lets the
	// handler act on a later failure of the run when that refusal takes
	// out files the failed call still carried: a call is retried once
	// per refusal, never twice for the same files. keel serve and keel
	// run turn it on.
	BlameReadableFiles bool
	// ProviderFiles, when not nil, lets a file too large to go inline
	// reach the model through its provider's own file store
	// ([keel.FileStore]: Gemini's, OpenAI's and Anthropic's Files APIs),
	// by reference, instead of being taken out of the prompt: a file
	// refused for its size, or remembered so, and the largest files of a
	// request whose inline files would be over the provider's limit are
	// uploaded once and named by reference in their place. The store
	// keeps each reference by the model's scope and the file's digest, so
	// later turns (and other threads, and other servers on the store's
	// database) name the file without uploading it again, until the
	// provider lets it expire. A file refused for its pages never goes by
	// reference, nor does any file of a model without a file store (an
	// OpenAI-compatible server): they are handled as refused. See
	// [OutcomeProviderFile]. keel serve and keel run pass their store.
	ProviderFiles memory.ProviderFiles
}

// NewUnsupportedFileHandler returns the unsupported-file handler as the
// reference framework has it: no converters, nothing remembered.
func NewUnsupportedFileHandler() *UnsupportedFileHandler { return &UnsupportedFileHandler{} }

// NewUnsupportedFileHandlerWith returns an unsupported-file handler with
// opts.
func NewUnsupportedFileHandlerWith(opts UnsupportedFileOptions) *UnsupportedFileHandler {
	return &UnsupportedFileHandler{converters: opts.Converters, images: opts.Images, describer: opts.DescribeWith, refusals: opts.Refusals,
		blameReadable: opts.BlameReadableFiles, providerFiles: opts.ProviderFiles}
}

// ID returns "unsupported-file-handler".
func (*UnsupportedFileHandler) ID() string { return UnsupportedFileHandlerID }

// unsupportedFileState is the handler's state for one run. mu is held for
// a whole rewrite, so that a file is uploaded once even if one run's
// rewrites overlap.
type unsupportedFileState struct {
	mu sync.Mutex
	// rejected holds the normalised media types and classes ("image/*")
	// refused by name, unnamedRejection for a refusal that named none, and
	// everyFile when such a refusal is blamed on readable files too, each
	// with the refusal's cause.
	rejected map[string]*RecoveryCause
	// rejectedFiles holds the digests of files refused for their size or
	// pages, with the refusal's cause.
	rejectedFiles map[string]*RecoveryCause
	// cause is the refusal the handler answered, told in its reports.
	cause *RecoveryCause
	// done maps a file (see fileKey) to what replaced it, so that every
	// call of the run gets the same text and the file is uploaded and
	// reported once.
	done replaced
	// uploaded maps a content's digest to where the sandbox has it.
	uploaded map[string]workspace.Uploaded
	// texts holds each file's conversion by digest, so that a file is
	// converted once however many names it comes under.
	texts map[string]conversion
	// remembered holds the cause of each remembered type the run met.
	remembered map[string]*RecoveryCause
	// now is what is remembered as refused for the call being rewritten.
	now map[string]*RecoveryCause
	// images holds each refused image re-encoded or described, by digest.
	images map[string]imageResult
	// pending are the types an unnamed refusal is to remember once a call
	// without them succeeds.
	pending []pendingRefusal
	// pf is what the run knows of the files it sends by reference.
	pf providerFileState
}

// HandleAPIError records which files the model refused and asks for a
// retry: on the run's first failure only, or, with
// [UnsupportedFileOptions].BlameReadableFiles, once for each refusal that
// takes out files the failed call still carried.
func (h *UnsupportedFileHandler) HandleAPIError(ctx context.Context, e *APIErrorEvent) (Decision, error) {
	if e == nil || e.Run == nil || e.Err == nil {
		return Decision{}, nil
	}
	if d, ok := h.referenceRefused(ctx, e); ok {
		return d, nil
	}
	if e.Run.RetryCount() > 0 && !h.blameReadable {
		return Decision{}, nil
	}
	c := classifyRefusal(e.Err)
	if c.notAFile {
		return Decision{}, nil
	}
	st := StateOf[unsupportedFileState](e.Run, h)
	st.mu.Lock()
	defer st.mu.Unlock()
	b := h.blame(e, st, c)
	if b.cause == nil {
		return Decision{}, nil
	}
	st.noteSizeRefusal(c, b)
	for _, n := range b.named {
		setIn(&st.rejected, n.mediaType, b.cause)
	}
	for _, d := range b.files {
		setIn(&st.rejectedFiles, d, b.cause)
	}
	if b.unnamed != "" {
		setIn(&st.rejected, b.unnamed, b.cause)
	}
	if st.cause == nil {
		st.cause = b.cause
	}
	h.learn(ctx, e, st, b)
	return Decision{Retry: true}, nil
}

// blamed is what a refusal is blamed on: media types or classes refused
// by name, single files by digest (a size or page limit), or, for a
// refusal that names nothing, every unreadable file (unnamedRejection) or
// with BlameReadableFiles every file ("*/*").
type blamed struct {
	named   []namedRefusal
	files   []string
	unnamed string
	// pending are the types an unnamed refusal took out, remembered once
	// a call without them succeeds.
	pending []string
	cause   *RecoveryCause
}

// blame decides what e's refusal, classified as c, is blamed on, among
// the files the failed call carried that were not taken out yet. Nothing
// (a nil cause) means the refusal is left to the other handlers.
// st.mu must be held.
func (h *UnsupportedFileHandler) blame(e *APIErrorEvent, st *unsupportedFileState, c refusalClass) blamed {
	// The failed call's prompt holds what is left to take out; before a
	// rewrite (the first call) it is the run's messages.
	sent := e.Prompt
	if sent == nil {
		sent = e.Run.Messages
	}
	carried := func(ok func(keel.FilePart) bool) bool { return holdsFile(sent, true, ok) }
	var b blamed
	if len(c.named) > 0 {
		if holdsFile(e.Run.Messages, false, anyFile) || holdsFile(sent, false, anyFile) {
			b.cause = c.namedCause
			for _, t := range c.named {
				b.named = append(b.named, namedRefusal{t, c.namedCause})
			}
		}
		return b
	}
	f := c.http
	if f == nil {
		return b
	}
	cause := apiErrorCause(f)
	switch faultOf(f) {
	case keel.FaultFileType:
		class := keel.NormalizeMediaType(f.MediaType)
		if class == "" {
			class = keel.NormalizeMediaType(f.MediaClass)
		}
		if class != "" && carried(func(p keel.FilePart) bool { return keel.MatchMediaClass(class, p.MediaType) }) {
			b.named, b.cause = []namedRefusal{{class, cause}}, cause
			return b
		}
	case keel.FaultFileSize, keel.FaultFilePages:
		if files := overLimit(e.Run, sent, f); len(files) > 0 {
			b.files, b.cause = files, cause
			return b
		}
	}
	switch {
	case carried(unreadable):
		// The reference framework's rule: any answer but those that ask
		// to try again later, while the request holds a file that is not
		// an image, a PDF or text.
		b.unnamed, b.cause = unnamedRejection, cause
		b.pending = fileTypes(sent, unreadable)
	case h.blameReadable && f.StatusCode >= 400 && carried(anyFile):
		// Beyond it: the request's files are all ones a model may read,
		// and one of them may still be what the server refuses (a model
		// without vision, a limit it did not state).
		b.unnamed, b.cause = everyFile, cause
		b.pending = fileTypes(sent, anyFile)
	}
	return b
}

// everyFile is the class of every file, which an unnamed refusal of a
// request whose files are all readable takes out with BlameReadableFiles.
const everyFile = "*/*"

// refusalClass is what an error says about files.
type refusalClass struct {
	// named are the media types SDKs refused by name; namedCause tells the
	// first.
	named      []string
	namedCause *RecoveryCause
	// http is the first provider answer whose status is no sign that the
	// same request may pass later, and that does not say it is about
	// something else than files.
	http *keel.APICallError
	// notAFile: an answer no file can cause is in the chain (see
	// notAFile in notafile.go).
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
			case notAFile(err):
				c.notAFile = true
				return true
			case asksToRetryLater(err.StatusCode) && err.Fault == "":
			case c.http == nil:
				c.http = err
			}
		}
		return false
	})
	return c
}

// faultOf is what an answer says about the request's files: its Fault,
// or, from an adapter that names a refused type or class without typing
// the fault, [keel.FaultFileType].
func faultOf(e *keel.APICallError) keel.Fault {
	if e.Fault == keel.FaultUnknown && (e.MediaType != "" || e.MediaClass != "") {
		return keel.FaultFileType
	}
	return e.Fault
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

func anyFile(keel.FilePart) bool { return true }

func unreadable(f keel.FilePart) bool { return !keel.IsReadable(f.MediaType) }

// holdsFile reports whether msgs hold a file part that ok accepts, in any
// message or with userOnly in a user or tool message.
func holdsFile(msgs []keel.Message, userOnly bool, ok func(keel.FilePart) bool) bool {
	roles := anyRole
	if userOnly {
		roles = carriesUserFiles
	}
	for f := range filesOf(msgs, roles) {
		if ok(f) {
			return true
		}
	}
	return false
}
