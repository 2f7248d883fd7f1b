package processor

import (
	"context"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/workspace"
)

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
	return rewriteFiles(req, UnsupportedFileHandlerID, carriesUserFiles, func(f keel.FilePart) (replacement, bool, bool, error) {
		sum := ""
		if digests && f.IsInline() {
			sum, _, _ = req.Run.fileDigest(f)
		}
		if r, byRef := refs[sum]; byRef && sum != "" {
			// The file goes by its reference in the provider's file
			// store, in its place.
			rep, first := st.referencePart(req.Run, f, sum, r)
			return rep, true, first, nil
		}
		cause, ok := st.selects(f, sum, remembered)
		if !ok {
			return replacement{}, false, false, nil
		}
		rep, first := h.replace(ctx, req, st, f, cause)
		return rep, true, first, nil
	})
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
	c := rememberedFor(remembered, t, sum)
	return c, c != nil
}

// replace returns what stands for f in the prompt, uploading and
// converting f when it can, and reports whether this is the run's first
// time for f.
func (h *UnsupportedFileHandler) replace(ctx context.Context, req *LLMRequest, st *unsupportedFileState, f keel.FilePart, cause *RecoveryCause) (replacement, bool) {
	pf := promptFile{part: f}
	if f.IsInline() {
		pf.sum, pf.data, pf.err = req.Run.fileDigest(f)
	}
	pf.filename = fileName(req.Run, f, pf.sum)
	rep, first, _ := st.done.once(fileKey(f, pf.sum, pf.filename), func() (replacement, error) {
		pf.name = displayName(pf.filename, f.MediaType)
		pf.decode()
		rep, warning, warnErr := h.sandboxOutcome(ctx, req.Run, st, &pf)
		if warning = h.withConversion(ctx, req, st, &pf, &rep, warning); warning != "" {
			warnRefusedFile(req.Run, warning, rep.file.Name, warnErr)
		}
		rep.cause = cause
		return rep, nil
	})
	return rep, first
}

// sandboxOutcome puts pf in the run's sandbox when it can, with the
// upload-and-note step FileUpload uses, and returns the note or
// placeholder that says what became of it, with a warning to log when
// there was a sandbox to try (or none to be had).
func (h *UnsupportedFileHandler) sandboxOutcome(ctx context.Context, run *Run, st *unsupportedFileState, pf *promptFile) (rep replacement, warning string, err error) {
	unavailable := func(warning string, err error) (replacement, string, error) {
		rep.file.Outcome = OutcomePlaceholder
		rep.texts = []string{placeholder(pf.name)}
		return rep, warning, err
	}
	rep.file = pf.recovered()
	if !pf.part.IsInline() {
		// The handler never downloads: a URL or a provider's reference
		// stays out of reach of the sandbox.
		return unavailable("", nil)
	}
	if _, err := run.Sandbox(ctx); err != nil {
		return unavailable(noSandboxWarning, err)
	}
	rep, fail := pf.upload(ctx, sandboxTarget{run: run, ws: run.Workspace, limit: workspace.MaxUploadSize, uploaded: &st.uploaded})
	switch {
	case fail == nil:
		return rep, "", nil
	case fail.code == CodeInvalidFileData || fail.code == CodeFileTooLarge:
		rep.notUploaded(pf.name, fail.reason)
		return rep, "", nil
	case fail.code == CodeUploadFailed:
		return unavailable("file the model refused not uploaded to the sandbox; placeholder sent", fail.err)
	}
	return unavailable("sandbox cannot take the file the model refused; placeholder sent", fail.err)
}

const noSandboxWarning = "no sandbox for a file the model refused; placeholder sent"

// fileName returns f's file name, or, for a prompt part that lost its
// name, that of a file of the run's messages with the same content; ""
// when there is none. sum is f's digest, "" when f is not inline.
func fileName(run *Run, f keel.FilePart, sum string) string {
	if f.Filename != "" {
		return f.Filename
	}
	for s := range filesOf(run.Messages, anyRole) {
		switch {
		case s.Filename == "":
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
	return ""
}

// warnRefusedFile logs msg about the file named name when err is not nil.
func warnRefusedFile(run *Run, msg, name string, err error) {
	if err != nil && run.Logger != nil {
		run.Logger.Warn(msg, "processor", UnsupportedFileHandlerID, "run", run.ID, "file", name, "err", err)
	}
}
