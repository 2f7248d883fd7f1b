package processor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// mediaTypePattern finds the media type in an SDK's refusal, such as
// "file part media type application/zip" or "media type: application/zip".
var mediaTypePattern = regexp.MustCompile(`(?i)media type:?\s+(\S+)`)

// UnsupportedFileHandler is the default error processor that keeps a run
// going when the model refuses a file a user sent. Once a call failed
// because of a file, it takes the files the model may not read out of the
// prompt of every later call of the run, and retries once: each such file
// is uploaded to the run's sandbox and replaced by a note giving its path,
// or, without a sandbox or when the upload fails, replaced by the
// placeholder "[Attachment unavailable: NAME]". Stored messages keep their
// files; only the prompt changes.
//
// A call counts as failed because of a file when the adapter refused a
// media type before sending ([keel.UnsupportedFunctionalityError] naming
// it) while the run holds a file, or when the provider answered with any
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

// Name returns "Unsupported File Handler", the name shown to people.
func (*UnsupportedFileHandler) Name() string { return "Unsupported File Handler" }

// unsupportedFileState is the handler's state for one run. mu is held for
// a whole rewrite, so that a file is uploaded once even if one run's
// rewrites overlap.
type unsupportedFileState struct {
	mu sync.Mutex
	// rejected holds the normalised media types refused by name, and
	// unnamedRejection for a refusal that named none.
	rejected map[string]bool
	// done maps a file's content digest, name, media type and upload
	// directory to what replaced it, so a later call reuses the note
	// without writing.
	done map[string]fileOutcome
	// reported holds the files already reported with Run.Report.
	reported map[string]bool
	// digests remembers the SHA-256 of inline bytes by their address, so
	// that a later call of the run does not hash a large file again: a
	// FilePart's Data is never modified, and prompts are clones that share
	// it with the stored messages.
	digests map[bytesID][sha256.Size]byte
}

// bytesID identifies a byte slice by its first byte's address and length.
type bytesID struct {
	first *byte
	n     int
}

// HandleAPIError records which files the model refused and asks for a
// retry, on the run's first failure only.
func (h *UnsupportedFileHandler) HandleAPIError(_ context.Context, e *APIErrorEvent) (Decision, error) {
	if e == nil || e.Run == nil || e.Err == nil || e.Run.RetryCount() > 0 {
		return Decision{}, nil
	}
	var named []string
	httpRejection := false
	walkCauses(e.Err, fileErrorDepth, func(err error) bool {
		switch err := err.(type) {
		case *keel.UnsupportedFunctionalityError:
			if m := mediaTypePattern.FindStringSubmatch(err.Functionality); m != nil {
				named = append(named, strings.ToLower(m[1]))
			}
		case *keel.APICallError:
			if !asksToRetryLater(err.StatusCode) {
				httpRejection = true
			}
		}
		return false
	})
	var record []string
	if len(named) > 0 && (holdsFile(e.Run.Messages, false) || holdsFile(e.Prompt, false)) {
		record = append(record, named...)
	}
	if httpRejection && (holdsFile(e.Run.Messages, true) || holdsFile(e.Prompt, true)) {
		record = append(record, unnamedRejection)
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
	st.mu.Unlock()
	return Decision{Retry: true}, nil
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

// fileOutcome is what replaced one file in the prompt.
type fileOutcome struct {
	text   string
	action string // recoveryUploaded or recoveryPlaceholder
	path   string // the sandbox path, when uploaded
}

// The actions of the handler's [Recovery] reports.
const (
	recoveryUploaded    = "uploaded"
	recoveryPlaceholder = "placeholder"
)

// RewriteLLMRequest replaces, in the user messages of req.Prompt, every
// file whose media type a model refused by name and every file a model
// may not read, once a call of the run failed because of a file. Each file
// becomes one text part at its place: the upload note when the run has a
// sandbox and the file's data is inline, a note saying why it was not
// uploaded when it is too large or its data is undecodable, and the
// placeholder otherwise. Failures to upload are logged, never returned.
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
	var fresh []fileReport
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
			rep := h.replace(ctx, req.Run, st, f)
			if !cloned {
				// The prompt is a clone already; cloning the parts again
				// costs a slice header per part and guards against a
				// caller that shared them anyway.
				m.Parts, cloned = slices.Clone(m.Parts), true
			}
			m.Parts[j] = keel.TextPart{Text: rep.outcome.text}
			if st.reported == nil {
				st.reported = make(map[string]bool)
			}
			if !st.reported[rep.key] {
				st.reported[rep.key] = true
				fresh = append(fresh, rep)
			}
		}
	}
	reportRefusedFiles(req.Run, fresh)
	return nil
}

// selects reports whether f is taken out of the prompt.
func (st *unsupportedFileState) selects(f keel.FilePart) bool {
	return st.rejected[keel.NormalizeMediaType(f.MediaType)] || !keel.IsReadable(f.MediaType)
}

// fileReport is one replaced file: what replaced it, and what identifies
// it among the run's reports.
type fileReport struct {
	key     string
	file    RecoveredFile
	outcome fileOutcome
}

// replace works out what stands for f in the prompt, uploading it when it
// can.
func (h *UnsupportedFileHandler) replace(ctx context.Context, run *Run, st *unsupportedFileState, f keel.FilePart) fileReport {
	filename := f.Filename
	if filename == "" {
		filename = storedFileName(run.Messages, f)
	}
	name := workspace.DisplayName(filename, f.MediaType)
	rep := fileReport{file: RecoveredFile{Name: name, MediaType: keel.NormalizeMediaType(f.MediaType)}}
	placeholder := fileOutcome{text: workspace.UnavailablePlaceholder(name), action: recoveryPlaceholder}

	if !f.IsInline() {
		// The handler never downloads: a URL or a provider's reference
		// stays out of reach of the sandbox.
		rep.key = refusedFileKey(name, "url", sha256.Sum256([]byte(f.URL)))
		rep.outcome = placeholder
		return rep
	}
	data, err := f.InlineData()
	if err != nil {
		rep.key = refusedFileKey(name, "url", sha256.Sum256([]byte(f.URL)))
		rep.outcome = placeholder
		if _, sbErr := run.Sandbox(ctx); sbErr == nil {
			rep.outcome.text = workspace.NotUploadedNote(name, workspace.UndecodableReason(filename))
		}
		return rep
	}
	sum := st.digest(data)
	rep.key = refusedFileKey(name, "data", sum)
	// The note names the file and its path takes the name's extension, so
	// the same bytes under another name or type have an outcome of their
	// own (and are still written once: the path is content-addressed).
	cacheKey := rep.key + "\x00" + f.MediaType + "\x00" + workspace.UploadDir(run.ThreadID, run.ResourceID)
	if out, ok := st.done[cacheKey]; ok {
		rep.outcome, rep.file.Path = out, out.path
		return rep
	}

	sb, err := run.Sandbox(ctx)
	if err != nil {
		warnRefusedFile(run, "no sandbox for a file the model refused; placeholder sent", name, err)
		rep.outcome = placeholder
		return rep
	}
	up, err := workspace.Upload(ctx, sb, run.ThreadID, run.ResourceID, workspace.File{Name: filename, MediaType: f.MediaType, Data: data, SHA256: sum})
	var tooLarge *workspace.FileTooLargeError
	switch {
	case err == nil:
		rep.outcome = fileOutcome{text: workspace.UploadNote(up), action: recoveryUploaded, path: up.Path}
	case errors.As(err, &tooLarge):
		rep.outcome = fileOutcome{text: workspace.NotUploadedNote(name, tooLarge.Error()), action: recoveryPlaceholder}
	default:
		warnRefusedFile(run, "file the model refused not uploaded to the sandbox; placeholder sent", name, err)
		rep.outcome = placeholder
	}
	if ctx.Err() == nil {
		// A failure is kept too, so that every call of the run sees the
		// same prompt and a broken sandbox is not written to at each step.
		// A cancelled upload is not: the run is ending anyway.
		if st.done == nil {
			st.done = make(map[string]fileOutcome)
		}
		st.done[cacheKey] = rep.outcome
	}
	rep.file.Path = rep.outcome.path
	return rep
}

// digest returns the SHA-256 of data, from the run's memory when the
// same bytes were hashed before.
func (st *unsupportedFileState) digest(data []byte) [sha256.Size]byte {
	if len(data) == 0 {
		return sha256.Sum256(data)
	}
	id := bytesID{first: &data[0], n: len(data)}
	if sum, ok := st.digests[id]; ok {
		return sum
	}
	sum := sha256.Sum256(data)
	if st.digests == nil {
		st.digests = make(map[bytesID][sha256.Size]byte)
	}
	st.digests[id] = sum
	return sum
}

// storedFileName returns the name of a file in msgs with the same content as
// f, for a prompt part that lost its name; "" when there is none.
func storedFileName(msgs []keel.Message, f keel.FilePart) string {
	for _, m := range msgs {
		for _, p := range m.Parts {
			s, ok := p.(keel.FilePart)
			if ok && s.Filename != "" && sameFileContent(s, f) {
				return s.Filename
			}
		}
	}
	return ""
}

func sameFileContent(a, b keel.FilePart) bool {
	if a.Data != nil || b.Data != nil {
		return a.Data != nil && b.Data != nil && len(a.Data) == len(b.Data) &&
			(len(a.Data) == 0 || &a.Data[0] == &b.Data[0] || bytes.Equal(a.Data, b.Data))
	}
	return a.URL == b.URL
}

// refusedFileKey names a file for the run's reports: its content and its name.
func refusedFileKey(name, kind string, sum [sha256.Size]byte) string {
	return kind + ":" + hex.EncodeToString(sum[:]) + ":" + name
}

// reportRefusedFiles tells the run what this rewrite did with files not reported
// before: one [Recovery] per action.
func reportRefusedFiles(run *Run, reps []fileReport) {
	for _, action := range []string{recoveryUploaded, recoveryPlaceholder} {
		var files []RecoveredFile
		for _, r := range reps {
			if r.outcome.action == action {
				files = append(files, r.file)
			}
		}
		if len(files) > 0 {
			run.Report(Recovery{Processor: UnsupportedFileHandlerID, Action: action, Files: files})
		}
	}
}

func warnRefusedFile(run *Run, msg, name string, err error) {
	if run.Logger != nil {
		run.Logger.Warn(msg, "processor", UnsupportedFileHandlerID, "run", run.ID, "file", name, "err", err)
	}
}
