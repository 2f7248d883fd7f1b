package processor

import (
	"context"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/workspace"
)

// The upload-and-note step that FileUpload and the unsupported-file
// handler share: a file of the prompt goes to the sandbox and a note
// takes its place. The two differ only in what selects a file and in what
// a failure does (FileUpload stops the turn for a file of the turn; the
// handler sends the placeholder).

// promptFile is a file of a prompt as a rewrite knows it.
type promptFile struct {
	part keel.FilePart
	// filename is the name the file goes under (its upload path's
	// extension, the reasons of its notes): the sender's, or, for a
	// nameless part, that of a stored file with the same content.
	filename string
	// name is the file as its notes show it.
	name string
	sum  string // the content's digest; "" when not inline or not read
	data []byte // the decoded content, once decode is called
	err  error  // why the content cannot be read
}

// decode reads pf's content when it is inline and fileDigest had not
// decoded it yet.
func (pf *promptFile) decode() {
	if pf.part.IsInline() && pf.err == nil {
		pf.data, pf.err = inlineData(pf.part, pf.data)
	}
}

// recovered is pf as reported, before anything is done with it.
func (pf *promptFile) recovered() RecoveredFile {
	file := RecoveredFile{Name: displayName(pf.filename, pf.part.MediaType), MediaType: keel.NormalizeMediaType(pf.part.MediaType),
		SHA256: pf.sum, Size: int64(len(pf.data))}
	if pf.err != nil {
		file.SHA256 = ""
	}
	return file
}

// replacement is what stands for one file in the prompt: one or two text
// parts (the sandbox's note or the placeholder, and the file's text),
// then possibly a file part, the file as reported, and why it was
// handled.
type replacement struct {
	texts []string
	// part, when not nil, follows the texts: the refused image as the
	// model can read it, or the file by its provider reference.
	part  *keel.FilePart
	file  RecoveredFile
	cause *RecoveryCause
}

// parts returns the parts that take the file's place.
func (r replacement) parts() []keel.Part {
	with := textParts(r.texts)
	if r.part != nil {
		with = append(with, *r.part)
	}
	return with
}

// notUploaded makes r the "[File not uploaded]" note for the file shown
// as name.
func (r *replacement) notUploaded(name, reason string) {
	r.file.Outcome, r.file.Reason = OutcomeNotUploaded, reason
	r.texts = []string{notUploadedNote(name, reason)}
}

// sandboxTarget is where the upload-and-note step puts files.
type sandboxTarget struct {
	run   *Run
	ws    *workspace.Workspace
	limit int64 // the largest file, in decoded bytes
	// uploaded maps a content's digest to where it was put, so that the
	// same bytes under several names are written once (the path is the
	// content's).
	uploaded *map[string]workspace.Uploaded
}

// uploadFailure says why a file was not put in the sandbox: a
// [FileUploadError] code, its cause, and the reason a "[File not
// uploaded]" note gives.
type uploadFailure struct {
	code   string
	err    error
	reason string
}

// stop is the error that stops a turn for the file shown as name.
func (f *uploadFailure) stop(name string) *FileUploadError {
	return &FileUploadError{Code: f.code, File: name, Err: f.err}
}

// check says why pf, decoded, cannot go to a sandbox that takes files of
// up to limit bytes; nil when it can.
func (pf *promptFile) check(limit int64) *uploadFailure {
	if pf.err != nil {
		return &uploadFailure{CodeInvalidFileData, pf.err, undecodableReason(pf.filename)}
	}
	if size := int64(len(pf.data)); size > limit {
		return &uploadFailure{CodeFileTooLarge, &workspace.FileTooLargeError{Size: size, Limit: limit}, tooLargeReason(pf.filename, size, limit)}
	}
	return nil
}

// upload puts pf, decoded, in the sandbox, and returns the
// "[File uploaded to the sandbox]" note that stands for it, or why it
// could not: data that cannot be decoded, a file over the limit, a
// sandbox that cannot take files, a failed write. The replacement's file
// is filled in either way.
func (pf *promptFile) upload(ctx context.Context, to sandboxTarget) (replacement, *uploadFailure) {
	rep := replacement{file: pf.recovered()}
	if fail := pf.check(to.limit); fail != nil {
		return rep, fail
	}
	run := to.run
	u, ok := (*to.uploaded)[pf.sum]
	if !ok {
		up, err := run.uploader(ctx, to.ws)
		if err != nil {
			fe := sandboxError(err)
			reason := noSandboxReason
			if fe.Code == CodeNoWriteCapability {
				reason = cannotWriteReason
			}
			return rep, &uploadFailure{fe.Code, err, reason}
		}
		u, err = up.Upload(ctx, run.ThreadID, run.ResourceID, workspace.File{Name: pf.filename, MediaType: pf.part.MediaType, Data: pf.data, SHA256: pf.sum})
		if err != nil {
			return rep, &uploadFailure{CodeUploadFailed, err, uploadFailedReason}
		}
		setIn(to.uploaded, pf.sum, u)
	}
	rep.file.Outcome, rep.file.Path = OutcomeUploaded, u.Path
	rep.texts = []string{uploadNote(u.Path, pf.name, rep.file.MediaType, rep.file.Size)}
	return rep, nil
}

// replaced remembers what stood for each file of a run (by fileKey), so
// that every call of the run gets the same parts for it and it is
// uploaded, converted and reported once.
type replaced map[string]replacement

// once returns what stands for the file of key, made by make the first
// time, and whether this is the first time. An error of make is returned
// and nothing is remembered.
func (d *replaced) once(key string, make func() (replacement, error)) (replacement, bool, error) {
	if rep, ok := (*d)[key]; ok {
		return rep, false, nil
	}
	rep, err := make()
	if err != nil {
		return rep, false, err
	}
	setIn(d, key, rep)
	return rep, true, nil
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

// rewriteFiles puts, in the place of each file of the prompt's messages
// whose role roles accepts, what replace returns for it (ok false leaves
// the file), and reports as processor the files replaced for the first
// time in the run. An error of replace stops the walk; the files replaced
// before it are reported.
func rewriteFiles(req *LLMRequest, processor string, roles func(keel.Role) bool,
	replace func(keel.FilePart) (rep replacement, ok, first bool, err error)) error {
	var fresh []replacement
	err := replaceFiles(req.Prompt, roles, func(_ keel.Message, f keel.FilePart) ([]keel.Part, bool, error) {
		rep, ok, first, err := replace(f)
		if err != nil || !ok {
			return nil, false, err
		}
		if first {
			fresh = append(fresh, rep)
		}
		return rep.parts(), true, nil
	})
	reportHandled(req.Run, processor, fresh)
	return err
}

// reportHandled tells the run what a rewrite did with files it had not
// reported before: one [Recovery] per outcome and cause, in the order they
// first appear.
func reportHandled(run *Run, processor string, files []replacement) {
	type group struct {
		outcome string
		cause   *RecoveryCause
	}
	var order []group
	byGroup := make(map[group][]RecoveredFile)
	for _, f := range files {
		g := group{f.file.Outcome, f.cause}
		if _, seen := byGroup[g]; !seen {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], f.file)
	}
	for _, g := range order {
		run.Report(Recovery{Processor: processor, Action: g.outcome, Files: byGroup[g], Cause: g.cause})
	}
}
