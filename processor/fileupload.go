package processor

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/workspace"
)

// FileUploadID is the ID of [FileUpload].
const FileUploadID = "file-upload"

// DefaultMaxFileSize is the size limit of [FileUpload] when no MaxSize is
// given: 10 MiB, the most the upload writer takes.
const DefaultMaxFileSize = workspace.MaxUploadSize

// FileInfo describes a file to a [FileUploadOptions] Filter or MaxSize.
type FileInfo struct {
	// Name is the file name as the sender gave it; it may be empty.
	Name string
	// MediaType is the normalised media type ("text/csv"); it may be
	// empty.
	MediaType string
	// Extension is the extension the upload path gets ("csv"), from the
	// name or else the media type; "" when none.
	Extension string
	// Inline reports that the content travels with the message (bytes or
	// a data: URL). A file given by http(s) URL or provider reference
	// cannot be uploaded, since the processor never downloads: choosing
	// one stops the turn with FILE_NOT_UPLOADED.
	Inline bool
}

// FileUploadOptions configure a [FileUpload].
type FileUploadOptions struct {
	// Workspace gives the sandbox files are uploaded to. Required. Give it
	// the agent's workspace, so that the agent's tools see the files.
	Workspace *workspace.Workspace
	// Filter chooses the files to upload; nil chooses every file whose
	// content is inline (FileInfo.Inline). An error stops a turn whose new
	// files it was checking.
	Filter func(FileInfo) (bool, error)
	// MaxSize gives the largest size, in decoded bytes, of a chosen file;
	// nil means [DefaultMaxFileSize]. A limit of 0 or less, or over
	// workspace.MaxUploadSize, is an INVALID_MAX_FILE_SIZE error.
	MaxSize func(FileInfo) int64
}

// FileUpload is an input processor that puts the files of user messages
// into the run's sandbox before the model sees them (BEHAVIOUR §6).
//
// On input it checks the turn's new user files that Filter chooses: each
// must have inline content (bytes or a data: URL; the processor never
// downloads), decodable, within MaxSize, and the run must have a sandbox
// that can take files. Any failure stops the turn with a
// [*FileUploadError] and nothing is written.
//
// Before each model call it uploads every chosen file of the prompt's
// user messages, history included, with workspace.Upload, and
// replaces it, in the prompt only, with the upload note giving its path.
// Each file is uploaded once per run and reported once, as a [Recovery]
// with Action "uploaded". When a file of the current turn cannot be
// uploaded the run stops with a [*FileUploadError]; a file from the history
// gets a "[File not uploaded]" note instead and the run goes on. Files
// given by URL that the filter does not choose (the default filter chooses
// none) are left in the prompt as they are.
//
// A file belongs to the current turn when its content is that of a file
// ProcessInput saw in the turn's new messages. Without a ProcessInput call
// in the run, every file counts as history.
//
// A FileUpload holds no per-run state of its own, so one value serves any
// number of concurrent runs.
type FileUpload struct {
	ws      *workspace.Workspace
	filter  func(FileInfo) (bool, error)
	maxSize func(FileInfo) int64
}

// NewFileUpload returns a file-upload processor. A nil Workspace, or one
// with no sandbox at all, is a NO_SANDBOX [*FileUploadError]; a sandbox
// that can neither write files nor run commands is NO_WRITE_CAPABILITY. A
// workspace that resolves its sandbox per run is asked once with an empty
// Scope: a sandbox is checked as above, and a resolver error is accepted,
// the run's own sandbox being checked when a turn brings files.
func NewFileUpload(opts FileUploadOptions) (*FileUpload, error) {
	if opts.Workspace == nil {
		return nil, &FileUploadError{Code: CodeNoSandbox, Err: errors.New("no workspace given")}
	}
	sb, err := opts.Workspace.Sandbox(context.Background(), workspace.Scope{})
	switch {
	// The bare sentinel comes from a workspace that has no sandbox and no
	// resolver; a resolver's error is wrapped and may be about the empty
	// scope only.
	case err == workspace.ErrNoSandbox: //nolint:errorlint // identity is the point
		return nil, &FileUploadError{Code: CodeNoSandbox, Err: err}
	case err == nil && !canUpload(sb):
		return nil, &FileUploadError{Code: CodeNoWriteCapability, Err: workspace.ErrNoWriteCapability}
	}
	p := &FileUpload{ws: opts.Workspace, filter: opts.Filter, maxSize: opts.MaxSize}
	if p.filter == nil {
		p.filter = func(info FileInfo) (bool, error) { return info.Inline, nil }
	}
	if p.maxSize == nil {
		p.maxSize = func(FileInfo) int64 { return DefaultMaxFileSize }
	}
	return p, nil
}

// ID returns "file-upload".
func (*FileUpload) ID() string { return FileUploadID }

// Name returns "File Upload", the name shown to people.
func (*FileUpload) Name() string { return "File Upload" }

// fileUploadState is the processor's state for one run. mu is held for a
// whole hook, so that a file is uploaded once even if hooks overlap.
type fileUploadState struct {
	mu sync.Mutex
	// turn holds the user files of the turn's new messages.
	turn []keel.FilePart
	// sandbox is the run's sandbox, resolved once.
	sandbox     workspace.Sandbox
	sandboxErr  error
	sandboxDone bool
	// done maps a file to the text that replaces it in every prompt of
	// the run.
	done map[uploadKey]string
}

// uploadKey identifies a file part of the run: prompts are clones that
// share the stored parts' bytes, so the bytes' address is stable.
type uploadKey struct {
	first *byte
	n     int
	url   string
	name  string
}

func keyOf(f keel.FilePart) uploadKey {
	k := uploadKey{n: len(f.Data), name: f.Filename}
	switch {
	case len(f.Data) > 0:
		k.first = &f.Data[0]
	case f.Data == nil:
		k.url = f.URL
	}
	return k
}

// ProcessInput checks the files of the turn's new user messages. It
// writes nothing.
func (p *FileUpload) ProcessInput(ctx context.Context, in *Input) error {
	if in == nil || in.Run == nil {
		return nil
	}
	st := StateOf[fileUploadState](in.Run, p)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.turn = st.turn[:0]
	chosen := false
	for _, m := range in.Messages {
		if m.Role != keel.RoleUser {
			continue
		}
		for _, part := range m.Parts {
			f, ok := part.(keel.FilePart)
			if !ok {
				continue
			}
			st.turn = append(st.turn, f)
			sel, _, err := p.check(f)
			if err != nil {
				return err
			}
			chosen = chosen || sel
		}
	}
	if !chosen {
		return nil
	}
	sb, err := p.sandbox(ctx, in.Run, st)
	if err != nil {
		return &FileUploadError{Code: CodeNoSandbox, Err: err}
	}
	if !canUpload(sb) {
		return &FileUploadError{Code: CodeNoWriteCapability, Err: workspace.ErrNoWriteCapability}
	}
	return nil
}

// check applies the filter and the limits to f. It reports whether f is
// chosen and, when it is, its decoded data.
func (p *FileUpload) check(f keel.FilePart) (bool, []byte, error) {
	info := FileInfo{
		Name:      f.Filename,
		MediaType: keel.NormalizeMediaType(f.MediaType),
		Extension: workspace.Extension(f.Filename, f.MediaType),
		Inline:    f.IsInline(),
	}
	name := workspace.DisplayName(f.Filename, f.MediaType)
	sel, err := p.filter(info)
	if err != nil {
		return false, nil, &FileUploadError{Code: CodeInvalidFilter, File: name, Err: err}
	}
	if !sel {
		return false, nil, nil
	}
	if !f.IsInline() {
		return true, nil, &FileUploadError{Code: CodeFileNotUploaded, File: name,
			Err: errors.New("its content is given by URL or file reference, which is never downloaded; send the content inline")}
	}
	data, err := f.InlineData()
	if err != nil {
		return true, nil, &FileUploadError{Code: CodeInvalidFileData, File: name, Err: err}
	}
	limit := p.maxSize(info)
	if limit <= 0 || limit > workspace.MaxUploadSize {
		return true, nil, &FileUploadError{Code: CodeInvalidMaxFileSize, File: name,
			Err: errors.New("MaxSize gave a limit outside 1 to workspace.MaxUploadSize bytes")}
	}
	if int64(len(data)) > limit {
		return true, nil, &FileUploadError{Code: CodeFileTooLarge, File: name,
			Err: &workspace.FileTooLargeError{Name: reasonOf(f.Filename), Size: int64(len(data)), Limit: limit}}
	}
	return true, data, nil
}

// reasonOf is the name a reason sentence uses: "" for a file sent without
// one, which the sentence calls "an unnamed file".
func reasonOf(filename string) string {
	if filename == "" {
		return ""
	}
	return workspace.DisplayName(filename, "")
}

// sandbox returns the run's sandbox: the one the agent's tools use when
// this processor was given the agent's workspace.
func (p *FileUpload) sandbox(ctx context.Context, run *Run, st *fileUploadState) (workspace.Sandbox, error) {
	if st.sandboxDone {
		return st.sandbox, st.sandboxErr
	}
	if run.Workspace == p.ws {
		st.sandbox, st.sandboxErr = run.Sandbox(ctx)
	} else {
		st.sandbox, st.sandboxErr = p.ws.Sandbox(ctx, workspace.Scope{
			AgentID: run.AgentID, ThreadID: run.ThreadID, ResourceID: run.ResourceID,
		})
	}
	st.sandboxDone = ctx.Err() == nil
	return st.sandbox, st.sandboxErr
}

func canUpload(sb workspace.Sandbox) bool {
	_, canWrite := sb.(workspace.FileSystem)
	_, canRun := sb.(workspace.CommandRunner)
	return canWrite || canRun
}

// RewriteLLMRequest uploads the chosen files of the prompt's user
// messages and puts their notes in their place.
func (p *FileUpload) RewriteLLMRequest(ctx context.Context, req *LLMRequest) error {
	if req == nil || req.Run == nil {
		return nil
	}
	uploaded, err := p.rewrite(ctx, req)
	if len(uploaded) > 0 {
		req.Run.Report(Recovery{Processor: FileUploadID, Action: "uploaded", Files: uploaded})
	}
	return err
}

func (p *FileUpload) rewrite(ctx context.Context, req *LLMRequest) ([]RecoveredFile, error) {
	st := StateOf[fileUploadState](req.Run, p)
	st.mu.Lock()
	defer st.mu.Unlock()
	var uploaded []RecoveredFile
	for i := range req.Prompt {
		m := &req.Prompt[i]
		if m.Role != keel.RoleUser {
			continue
		}
		cloned := false
		for j, part := range m.Parts {
			f, ok := part.(keel.FilePart)
			if !ok {
				continue
			}
			text, up, err := p.replacement(ctx, req.Run, st, f)
			if err != nil {
				return uploaded, err
			}
			if text == "" {
				continue
			}
			if !cloned {
				// Parts of a prompt may be shared with the caller's
				// messages; a new slice keeps those intact.
				m.Parts, cloned = slices.Clone(m.Parts), true
			}
			m.Parts[j] = keel.TextPart{Text: text}
			if up != nil {
				uploaded = append(uploaded, RecoveredFile{Name: up.Name, MediaType: up.MediaType, Path: up.Path})
			}
		}
	}
	return uploaded, nil
}

// replacement returns the text that takes f's place in the prompt ("" to
// leave f), and what was uploaded when this call uploaded it.
func (p *FileUpload) replacement(ctx context.Context, run *Run, st *fileUploadState, f keel.FilePart) (string, *workspace.Uploaded, error) {
	key := keyOf(f)
	if text, ok := st.done[key]; ok {
		return text, nil, nil
	}
	current := st.isCurrent(f)
	name := workspace.DisplayName(f.Filename, f.MediaType)
	// A failure stops the run for a file of the current turn; for a file
	// of the history it becomes a note, the same on every call.
	fail := func(code string, cause error, reason string) (string, *workspace.Uploaded, error) {
		if current || ctx.Err() != nil {
			return "", nil, &FileUploadError{Code: code, File: name, Err: cause}
		}
		return st.remember(key, workspace.NotUploadedNote(name, reason)), nil, nil
	}

	sel, data, err := p.check(f)
	var fe *FileUploadError
	switch {
	case err == nil && !sel:
		return "", nil, nil
	case err == nil:
	case !errors.As(err, &fe) || fe.Code == CodeInvalidMaxFileSize:
		return "", nil, err // the configuration is wrong, whatever the file
	case fe.Code == CodeInvalidFilter || fe.Code == CodeFileNotUploaded:
		if current {
			return "", nil, err
		}
		// A history file the filter cannot judge, or given by URL, stays
		// as it was sent.
		if fe.Code == CodeInvalidFilter && run.Logger != nil {
			run.Logger.Warn("file-upload filter failed on a history file; left in the prompt", "file", name, "err", fe.Err)
		}
		return "", nil, nil
	case fe.Code == CodeInvalidFileData:
		return fail(fe.Code, fe.Err, workspace.UndecodableReason(f.Filename))
	case fe.Code == CodeFileTooLarge:
		return fail(fe.Code, fe.Err, fe.Err.Error())
	default:
		return "", nil, err
	}

	sb, err := p.sandbox(ctx, run, st)
	if err != nil {
		return fail(CodeNoSandbox, err, "No sandbox is available to this run.")
	}
	if !canUpload(sb) {
		return fail(CodeNoWriteCapability, workspace.ErrNoWriteCapability, "The sandbox cannot store files.")
	}
	up, err := workspace.Upload(ctx, sb, run.ThreadID, run.ResourceID, workspace.File{Name: f.Filename, MediaType: f.MediaType, Data: data})
	if err != nil {
		if run.Logger != nil {
			run.Logger.Warn("file-upload: upload to the sandbox failed", "file", name, "err", err)
		}
		return fail(CodeUploadFailed, err, "Uploading it to the sandbox failed.")
	}
	return st.remember(key, workspace.UploadNote(up)), up, nil
}

func (st *fileUploadState) remember(key uploadKey, text string) string {
	if st.done == nil {
		st.done = make(map[uploadKey]string)
	}
	st.done[key] = text
	return text
}

// isCurrent reports whether f has the content of a file of the turn's new
// messages. The agent may store and reload those messages before the
// prompt is built, so equal bytes count, not only the same slice.
func (st *fileUploadState) isCurrent(f keel.FilePart) bool {
	for _, t := range st.turn {
		switch {
		case f.Data != nil && t.Data != nil:
			if len(f.Data) == len(t.Data) && (len(f.Data) == 0 || &f.Data[0] == &t.Data[0] || bytes.Equal(f.Data, t.Data)) {
				return true
			}
		case f.Data == nil && t.Data == nil:
			if f.URL == t.URL {
				return true
			}
		}
	}
	return false
}
