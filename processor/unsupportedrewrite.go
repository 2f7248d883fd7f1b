package processor

import (
	"context"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/workspace"
)

// replacement is what stands for one file in the prompt: one or two text
// parts (the sandbox's note or the placeholder, and the file's text), the
// file as reported, and why it was handled.
type replacement struct {
	texts []string
	// image, when not nil, follows the texts: the refused image as the
	// model can read it.
	image *keel.FilePart
	file  RecoveredFile
	cause *RecoveryCause
}

// RewriteLLMRequest replaces, in the user messages of req.Prompt, every
// file whose media type a model refused by name and every file a model
// may not read, once a call of the run failed because of a file, and
// every file of a type the model is remembered to refuse, as
// [UnsupportedFileHandler] says. Failures to upload or convert, and to
// read remembered refusals, are logged, never returned; only ctx's error,
// when it ends an upload to the provider's file store, is.
func (h *UnsupportedFileHandler) RewriteLLMRequest(ctx context.Context, req *LLMRequest) error {
	if req == nil || req.Run == nil {
		return nil
	}
	st := StateOf[unsupportedFileState](req.Run, h)
	st.mu.Lock()
	defer st.mu.Unlock()
	remembered, byFile := h.remembered(ctx, req, st)
	st.now = remembered
	refs, err := h.referencePlan(ctx, req, st, remembered)
	if err != nil {
		return err
	}
	if len(st.rejected) == 0 && len(st.rejectedFiles) == 0 && len(remembered) == 0 && len(refs) == 0 {
		return nil
	}
	// Files refused for their size or pages, and files sent by reference,
	// are known by their digest.
	digests := byFile || len(st.rejectedFiles) > 0 || len(refs) > 0
	var fresh []handledFile
	_ = replaceFiles(req.Prompt, carriesUserFiles, func(f keel.FilePart) ([]keel.Part, bool, error) {
		sum := ""
		if digests && f.IsInline() {
			sum, _, _ = req.Run.fileDigest(f)
		}
		if r, byRef := refs[sum]; byRef && sum != "" {
			// The file goes by its reference in the provider's file
			// store, in its place.
			part, report := st.referencePart(req.Run, f, sum, r)
			if report != nil {
				fresh = append(fresh, *report)
			}
			return []keel.Part{part}, true, nil
		}
		cause, ok := st.selects(f, sum, remembered)
		if !ok {
			return nil, false, nil
		}
		rep, isNew := h.replace(ctx, req, st, f, cause)
		with := textParts(rep.texts)
		if rep.image != nil {
			with = append(with, *rep.image)
		}
		if isNew {
			fresh = append(fresh, handledFile{file: rep.file, cause: rep.cause})
		}
		return with, true, nil
	})
	reportHandled(req.Run, UnsupportedFileHandlerID, fresh)
	return nil
}

// selects reports whether f, whose digest is sum ("" when it is not
// inline), is taken out of the prompt, and why: a refusal of this run, or
// one remembered.
func (st *unsupportedFileState) selects(f keel.FilePart, sum string, remembered map[string]*RecoveryCause) (*RecoveryCause, bool) {
	t := keel.NormalizeMediaType(f.MediaType)
	if len(st.rejected) > 0 {
		if c := st.rejected[t]; c != nil {
			return c, true
		}
		for class, c := range st.rejected {
			if keel.MatchMediaClass(class, t) {
				return c, true
			}
		}
		if !keel.IsReadable(t) {
			// Every refusal takes out, beside what it names, each file
			// that is not an image, a PDF or text.
			return st.cause, true
		}
	}
	if c := st.rejectedFiles[sum]; c != nil && sum != "" {
		return c, true
	}
	if c := remembered[t]; c != nil {
		return c, true
	}
	if c := remembered[fileRefusalKey(sum)]; c != nil && sum != "" {
		return c, true
	}
	return nil, false
}

// replace returns what stands for f in the prompt, uploading and
// converting f when it can, and reports whether this is the run's first
// time for f.
func (h *UnsupportedFileHandler) replace(ctx context.Context, req *LLMRequest, st *unsupportedFileState, f keel.FilePart, cause *RecoveryCause) (replacement, bool) {
	run := req.Run
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
	rep := h.outcome(ctx, req, st, f, filename, sum, data, dataErr)
	rep.cause = cause
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

// outcome works out what stands for f: the sandbox's note or the
// placeholder, then, for an image, the image as the model can read it or
// what can be said of it, or, when a converter knows f, its text.
func (h *UnsupportedFileHandler) outcome(ctx context.Context, req *LLMRequest, st *unsupportedFileState, f keel.FilePart, filename, sum string, data []byte, dataErr error) replacement {
	run := req.Run
	if f.IsInline() && dataErr == nil {
		data, dataErr = inlineData(f, data)
	}
	rep, warning, warnErr := h.sandboxOutcome(ctx, run, f, filename, sum, data, dataErr)
	if f.IsInline() && dataErr == nil && h.images != nil && strings.HasPrefix(keel.NormalizeMediaType(f.MediaType), "image/") {
		if img := h.imageOnce(ctx, req, st, f, filename, sum, data); img.image != nil || img.info != nil {
			if rep.file.Outcome == OutcomePlaceholder && img.image != nil {
				// The image stands for the file.
				rep.texts = nil
			}
			rep.texts = append(rep.texts, img.label(rep.file.Name))
			if img.image != nil {
				rep.image = &keel.FilePart{Data: img.image.Data, MediaType: img.image.MediaType, Filename: f.Filename}
			}
			rep.file.Outcome, rep.file.Conversion = OutcomeConverted, img.report()
			if warning == noSandboxWarning {
				warning = ""
			}
			if warning != "" {
				warnRefusedFile(run, warning, rep.file.Name, warnErr)
			}
			return rep
		}
	}
	if f.IsInline() && dataErr == nil && h.converters != nil {
		if conv := h.convertOnce(ctx, run, st, f, filename, sum, data); conv.res != nil {
			if rep.file.Outcome == OutcomePlaceholder {
				// The text stands for the file: the placeholder would say
				// it is unavailable.
				rep.texts = nil
			}
			rep.texts = append(rep.texts, conv.label(rep.file.Name, rep.file.Path))
			rep.file.Outcome, rep.file.Conversion = OutcomeConverted, conv.report()
			switch warning {
			case "", noSandboxWarning:
				// Without a sandbox the text is all a model can get.
				warning = ""
			default:
				warning = "file the model refused not uploaded to the sandbox; its text sent"
			}
		}
	}
	if warning != "" {
		warnRefusedFile(run, warning, rep.file.Name, warnErr)
	}
	return rep
}

// sandboxOutcome puts f in the run's sandbox when it can, and returns the
// note or placeholder that says what became of it, with a warning to log
// when there was a sandbox to try (or none to be had).
func (h *UnsupportedFileHandler) sandboxOutcome(ctx context.Context, run *Run, f keel.FilePart, filename, sum string, data []byte, dataErr error) (rep replacement, warning string, err error) {
	name := displayName(filename, f.MediaType)
	file := RecoveredFile{Name: name, MediaType: keel.NormalizeMediaType(f.MediaType), SHA256: sum, Outcome: OutcomePlaceholder}
	unavailable := func(warning string, err error) (replacement, string, error) {
		return replacement{texts: []string{placeholder(name)}, file: file}, warning, err
	}
	notUploaded := func(reason string) (replacement, string, error) {
		file.Outcome, file.Reason = OutcomeNotUploaded, reason
		return replacement{texts: []string{notUploadedNote(name, reason)}, file: file}, "", nil
	}

	if !f.IsInline() {
		// The handler never downloads: a URL or a provider's reference
		// stays out of reach of the sandbox.
		return unavailable("", nil)
	}
	if dataErr != nil {
		file.SHA256 = ""
	}
	file.Size = int64(len(data))
	if _, err := run.Sandbox(ctx); err != nil {
		return unavailable(noSandboxWarning, err)
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
	return replacement{texts: []string{uploadNote(u.Path, name, file.MediaType, file.Size)}, file: file}, "", nil
}

const noSandboxWarning = "no sandbox for a file the model refused; placeholder sent"

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
