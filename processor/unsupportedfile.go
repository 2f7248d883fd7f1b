package processor

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/keel-go/keel"
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
// going when the model refuses a file a user sent. Once a call failed
// because of a file, it takes the files the model may not read out of the
// prompt of every later call of the run, and retries once. Each such file
// becomes one text part at its place (see the package documentation for
// the texts):
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
// Stored messages keep their files; only the prompt changes. Each file
// is uploaded and reported once per run ([Recovery], with the refusal as
// its Cause), and every call of the run gets the same text for it.
//
// A call counts as failed because of a file when the adapter refused a
// media type before sending ([keel.UnsupportedFunctionalityError] with its
// MediaType, or naming it in its text) while the run holds a file, or when the provider answered with any
// [keel.APICallError] but 408, 409, 429, 503 and 504 (which
// [StreamErrorRetry] retries as they are) while a user message holds a
// file that is not an image, a PDF or text. It acts only on the run's
// first failure.
//
// It has no options. Its state lives in the run, so one value serves any
// number of concurrent runs.
type UnsupportedFileHandler struct{}

// NewUnsupportedFileHandler returns the unsupported-file handler.
func NewUnsupportedFileHandler() *UnsupportedFileHandler { return &UnsupportedFileHandler{} }

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
}

// replacement is what stands for one file in the prompt, and the file as
// reported.
type replacement struct {
	text string
	file RecoveredFile
}

// HandleAPIError records which files the model refused and asks for a
// retry, on the run's first failure only.
func (h *UnsupportedFileHandler) HandleAPIError(_ context.Context, e *APIErrorEvent) (Decision, error) {
	if e == nil || e.Run == nil || e.Err == nil || e.Run.RetryCount() > 0 {
		return Decision{}, nil
	}
	var named []string
	var namedCause, httpCause *RecoveryCause
	walkCauses(e.Err, fileErrorDepth, func(err error) bool {
		switch err := err.(type) {
		case *keel.UnsupportedFunctionalityError:
			if t := refusedMediaType(err); t != "" {
				named = append(named, t)
				if namedCause == nil {
					namedCause = refusalCause(err, t)
				}
			}
		case *keel.APICallError:
			if !asksToRetryLater(err.StatusCode) && httpCause == nil {
				httpCause = apiErrorCause(err)
			}
		}
		return false
	})
	var record []string
	cause := httpCause
	if httpCause != nil && (holdsFile(e.Run.Messages, true) || holdsFile(e.Prompt, true)) {
		record = append(record, unnamedRejection)
	}
	if len(named) > 0 && (holdsFile(e.Run.Messages, false) || holdsFile(e.Prompt, false)) {
		record = append(record, named...)
		cause = namedCause
	}
	if len(record) == 0 {
		return Decision{}, nil
	}
	st := StateOf[unsupportedFileState](e.Run, h)
	st.mu.Lock()
	if st.rejected == nil {
		st.rejected = make(map[string]bool)
	}
	for _, t := range record {
		st.rejected[t] = true
	}
	if st.cause == nil {
		st.cause = cause
	}
	st.mu.Unlock()
	return Decision{Retry: true}, nil
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
		return strings.ToLower(m[1])
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

// holdsFile reports whether msgs hold a file part: any file in any
// message, or with userUnreadable only a file a model may not read in a
// user message.
func holdsFile(msgs []keel.Message, userUnreadable bool) bool {
	for _, m := range msgs {
		if userUnreadable && m.Role != keel.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			f, ok := p.(keel.FilePart)
			if ok && (!userUnreadable || !keel.IsReadable(f.MediaType)) {
				return true
			}
		}
	}
	return false
}

// RewriteLLMRequest replaces, in the user messages of req.Prompt, every
// file whose media type a model refused by name and every file a model
// may not read, once a call of the run failed because of a file, as
// [UnsupportedFileHandler] says. Failures to upload are logged, never
// returned.
func (h *UnsupportedFileHandler) RewriteLLMRequest(ctx context.Context, req *LLMRequest) error {
	if req == nil || req.Run == nil {
		return nil
	}
	st := StateOf[unsupportedFileState](req.Run, h)
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.rejected) == 0 {
		return nil
	}
	var fresh []RecoveredFile
	for i := range req.Prompt {
		m := &req.Prompt[i]
		if m.Role != keel.RoleUser {
			continue
		}
		cloned := false
		for j, p := range m.Parts {
			f, ok := p.(keel.FilePart)
			if !ok || !st.selects(f) {
				continue
			}
			rep, isNew := h.replace(ctx, req.Run, st, f)
			if !cloned {
				// The prompt is a clone already; cloning the parts again
				// costs a slice header per part and guards against a
				// caller that shared them anyway.
				m.Parts, cloned = slices.Clone(m.Parts), true
			}
			m.Parts[j] = keel.TextPart{Text: rep.text}
			if isNew {
				fresh = append(fresh, rep.file)
			}
		}
	}
	reportFiles(req.Run, UnsupportedFileHandlerID, st.cause, fresh)
	return nil
}

// selects reports whether f is taken out of the prompt.
func (st *unsupportedFileState) selects(f keel.FilePart) bool {
	return st.rejected[keel.NormalizeMediaType(f.MediaType)] || !keel.IsReadable(f.MediaType)
}

// replace returns what stands for f in the prompt, uploading f when it
// can, and reports whether this is the run's first time for f.
func (h *UnsupportedFileHandler) replace(ctx context.Context, run *Run, st *unsupportedFileState, f keel.FilePart) (replacement, bool) {
	sum, data, dataErr := "", []byte(nil), error(nil)
	if f.IsInline() {
		sum, data, dataErr = run.fileDigest(f)
	}
	filename := f.Filename
	if filename == "" {
		filename = storedFileName(run, f, sum)
	}
	key := fileKey(f, sum, filename)
	if rep, ok := st.done[key]; ok {
		return rep, false
	}
	rep := h.outcome(ctx, run, f, filename, sum, data, dataErr)
	if st.done == nil {
		st.done = make(map[string]replacement)
	}
	st.done[key] = rep
	return rep, true
}

// fileKey names a file among the run's: its content (the digest, or the
// URL of a file not inline or not decodable) and what its text shows (the
// name and media type, which also give the upload path's extension). The
// same bytes under another name get a note of their own, and are still
// written once: the path is content-addressed.
func fileKey(f keel.FilePart, sum, filename string) string {
	content := "sha256:" + sum
	if sum == "" {
		content = "url:" + f.URL
	}
	return content + "\x00" + filename + "\x00" + f.MediaType
}

// outcome works out what stands for f, uploading it when it can.
func (h *UnsupportedFileHandler) outcome(ctx context.Context, run *Run, f keel.FilePart, filename, sum string, data []byte, dataErr error) replacement {
	name := displayName(filename, f.MediaType)
	file := RecoveredFile{Name: name, MediaType: keel.NormalizeMediaType(f.MediaType), SHA256: sum, Outcome: OutcomePlaceholder}
	unavailable := func(warning string, err error) replacement {
		if warning != "" {
			warnRefusedFile(run, warning, name, err)
		}
		return replacement{text: placeholder(name), file: file}
	}
	notUploaded := func(reason string) replacement {
		file.Outcome, file.Reason = OutcomeNotUploaded, reason
		return replacement{text: notUploadedNote(name, reason), file: file}
	}

	if !f.IsInline() {
		// The handler never downloads: a URL or a provider's reference
		// stays out of reach of the sandbox.
		return unavailable("", nil)
	}
	if dataErr == nil {
		data, dataErr = inlineData(f, data)
	}
	if dataErr != nil {
		file.SHA256 = ""
	}
	file.Size = int64(len(data))
	if _, err := run.Sandbox(ctx); err != nil {
		return unavailable("no sandbox for a file the model refused; placeholder sent", err)
	}
	if dataErr != nil {
		return notUploaded(undecodableReason(filename))
	}
	if file.Size > workspace.MaxUploadSize {
		return notUploaded(tooLargeReason(filename, file.Size, workspace.MaxUploadSize))
	}
	up, err := run.uploader(ctx, run.Workspace)
	if err != nil {
		return unavailable("sandbox cannot take the file the model refused; placeholder sent", err)
	}
	u, err := up.Upload(ctx, run.ThreadID, run.ResourceID, workspace.File{Name: filename, MediaType: f.MediaType, Data: data, SHA256: sum})
	if err != nil {
		return unavailable("file the model refused not uploaded to the sandbox; placeholder sent", err)
	}
	file.Outcome, file.Path = OutcomeUploaded, u.Path
	return replacement{text: uploadNote(u.Path, name, file.MediaType, file.Size), file: file}
}

// storedFileName returns the name of a file of the run's messages with the
// same content as f, for a prompt part that lost its name; "" when there
// is none. sum is f's digest, "" when f is not inline.
func storedFileName(run *Run, f keel.FilePart, sum string) string {
	for _, m := range run.Messages {
		for _, p := range m.Parts {
			s, ok := p.(keel.FilePart)
			switch {
			case !ok || s.Filename == "":
				continue
			case sum == "":
				// Not inline, or not decodable: the URL is the content.
				if s.Data == nil && s.URL == f.URL {
					return s.Filename
				}
				continue
			case !s.IsInline():
				continue
			}
			if s.Source() == keel.SourceBytes && f.Source() == keel.SourceBytes && len(s.Data) != len(f.Data) {
				continue // cannot be the same content: spare the digest
			}
			if other, _, err := run.fileDigest(s); err == nil && other == sum {
				return s.Filename
			}
		}
	}
	return ""
}

func warnRefusedFile(run *Run, msg, name string, err error) {
	if run.Logger != nil {
		run.Logger.Warn(msg, "processor", UnsupportedFileHandlerID, "run", run.ID, "file", name, "err", err)
	}
}
