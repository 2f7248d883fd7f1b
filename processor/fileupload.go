package processor

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
// Only files whose content travels with the message (bytes or a data:
// URL) are described: a file given by http(s) URL or provider file ID is
// never offered, and stays in the prompt for the model.
type FileInfo struct {
	// Name is the file name as the sender gave it; it may be empty.
	Name string
	// MediaType is the normalised media type ("text/csv"); it may be
	// empty.
	MediaType string
	// Extension is the extension of Name ("csv"), lower-cased; "" when
	// the file has no name or its name has none. A nameless file's upload
	// path still gets its media type's extension (see
	// [workspace.Extension]), but the filter and the limit are told
	// only what the sender gave.
	Extension string
}

// FileUploadOptions configure a [FileUpload].
type FileUploadOptions struct {
	// Workspace gives the sandbox files are uploaded to. Required. Give it
	// the agent's workspace, so that the agent's tools see the files.
	Workspace *workspace.Workspace
	// Filter chooses the files to upload; nil chooses every file it is
	// offered. An error stops a turn whose new files it was checking.
	Filter func(FileInfo) (bool, error)
	// MaxSize gives the largest size, in decoded bytes, of a chosen file;
	// nil means [DefaultMaxFileSize]. A limit of 0 or less, or over
	// workspace.MaxUploadSize, is an INVALID_MAX_FILE_SIZE error.
	MaxSize func(FileInfo) int64
	// Converters, when set, give the model the text of each uploaded file
	// a converter knows (a spreadsheet's cells as CSV, a document's
	// paragraphs), after its note, labelled as the unsupported-file
	// handler labels it; the file is reported with Outcome "converted".
	// Nil sends the note alone, as the reference framework does.
	Converters FileConverter
}

// FileUpload is an input processor that puts the files of user messages
// into the run's sandbox before the model sees them.
//
// On input it checks the turn's new user files that Filter chooses: each
// must be decodable and within MaxSize, and the run must have a sandbox
// that can take files. Any failure stops the turn with a
// [*FileUploadError] and nothing is written. A turn that brings no chosen
// file needs no sandbox. Files given by http(s) URL or provider file ID
// are never offered to Filter: the processor never downloads, and they
// stay in the prompt for the model.
//
// Before each model call it uploads every chosen file of the prompt's
// user messages, history included, with the path scheme of
// [workspace.Upload], and replaces it, in the prompt only, with the
// "[File uploaded to the sandbox]" note giving its path. Each file is
// uploaded once per run and reported once, as a [Recovery] with Action
// "uploaded". When a file of the current turn cannot be uploaded the run
// stops with a [*FileUploadError]; a file from the history gets a
// "[File not uploaded]" note with the reason instead, reported as
// "not-uploaded", and the run goes on.
//
// A file belongs to the current turn when its content is that of a file
// ProcessInput saw in the turn's new messages. Without a ProcessInput call
// in the run, every file counts as history.
//
// A FileUpload holds no per-run state of its own, so one value serves any
// number of concurrent runs.
type FileUpload struct {
	ws         *workspace.Workspace
	filter     func(FileInfo) (bool, error)
	maxSize    func(FileInfo) int64
	converters FileConverter
}

// NewFileUpload returns a file-upload processor. A nil Workspace, or one
// with no sandbox at all (workspace.New(nil)), is a NO_SANDBOX
// [*FileUploadError]. A workspace's resolver is not asked here: one that
// resolves none for some scope, or a sandbox that cannot take files,
// fails only the turns that bring a chosen file (NO_SANDBOX,
// NO_WRITE_CAPABILITY).
func NewFileUpload(opts FileUploadOptions) (*FileUpload, error) {
	if opts.Workspace == nil {
		return nil, &FileUploadError{Code: CodeNoSandbox, Err: errors.New("no workspace given")}
	}
	if !opts.Workspace.HasSandbox() {
		return nil, &FileUploadError{Code: CodeNoSandbox, Err: errors.New("the workspace has no sandbox")}
	}
	p := &FileUpload{ws: opts.Workspace, filter: opts.Filter, maxSize: opts.MaxSize, converters: opts.Converters}
	if p.filter == nil {
		p.filter = func(FileInfo) (bool, error) { return true, nil }
	}
	if p.maxSize == nil {
		p.maxSize = func(FileInfo) int64 { return DefaultMaxFileSize }
	}
	return p, nil
}

// ID returns "file-upload".
func (*FileUpload) ID() string { return FileUploadID }

// fileUploadState is the processor's state for one run. mu is held for a
// whole hook, so that a file is uploaded once even if hooks overlap.
type fileUploadState struct {
	mu sync.Mutex
	// turn holds the digests of the chosen files of the turn's new
	// messages.
	turn map[string]bool
	// done holds what replaces each file in every prompt of the run.
	done replaced
	// uploaded maps a content's digest to where it was put, so that the
	// same bytes under several names are written once.
	uploaded map[string]workspace.Uploaded
	// texts holds the conversions by digest.
	texts map[string]conversion
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
	st.turn = make(map[string]bool)
	for f := range filesOf(in.Messages, isUser) {
		c, chosen, err := p.read(in.Run, f)
		if err != nil {
			return err
		}
		if !chosen {
			continue
		}
		if c.fail == nil {
			c.decode()
			c.fail = c.check(c.limit)
		}
		if c.fail != nil {
			return c.fail.stop(c.name)
		}
		st.turn[c.sum] = true
	}
	if len(st.turn) == 0 {
		return nil
	}
	if _, err := in.Run.uploader(ctx, p.ws); err != nil {
		return sandboxError(err)
	}
	return nil
}

// sandboxError is the error of a run whose sandbox cannot take files.
func sandboxError(err error) *FileUploadError {
	if errors.Is(err, workspace.ErrNoWriteCapability) {
		return &FileUploadError{Code: CodeNoWriteCapability, Err: err}
	}
	return &FileUploadError{Code: CodeNoSandbox, Err: err}
}

// chosenFile is a file the filter chose, and what keeps it out of the
// sandbox when something does.
type chosenFile struct {
	promptFile
	limit int64
	fail  *uploadFailure
}

// read applies the filter to f, and reports whether it chose f: never
// a file given by URL or provider reference. A chosen file's size is
// checked before decoding: a file over the limit says so even when its
// data is badly encoded. Otherwise it is read (not decoded: see
// promptFile.decode).
func (p *FileUpload) read(run *Run, f keel.FilePart) (c chosenFile, chosen bool, err error) {
	if !f.IsInline() {
		return c, false, nil
	}
	// The extension is the name's alone: no media type stands in for it.
	info := FileInfo{Name: f.Filename, MediaType: keel.NormalizeMediaType(f.MediaType), Extension: workspace.Extension(f.Filename, "")}
	if chosen, err = p.filter(info); err != nil || !chosen {
		if err != nil {
			err = &FileUploadError{Code: CodeInvalidFilter, File: displayOf(f.Filename), Err: err}
		}
		return c, false, err
	}
	limit := p.maxSize(info)
	if limit <= 0 || limit > workspace.MaxUploadSize {
		return c, false, &FileUploadError{Code: CodeInvalidMaxFileSize, File: displayOf(f.Filename),
			Err: fmt.Errorf("MaxSize gave %d bytes; want 1 to %d", limit, int64(workspace.MaxUploadSize))}
	}
	c = chosenFile{promptFile: promptFile{part: f, filename: f.Filename, name: displayOf(f.Filename)}, limit: limit}
	if size := encodedSize(f); size > limit {
		c.fail = &uploadFailure{CodeFileTooLarge, &workspace.FileTooLargeError{Size: size, Limit: limit}, tooLargeReason(f.Filename, size, limit)}
		return c, true, nil
	}
	c.sum, c.data, c.err = run.fileDigest(f)
	return c, true, nil
}

// encodedSize is the size f's inline data decodes to, worked out without
// decoding it: exact for bytes, and for well-formed base64 or
// percent-encoded data: URLs.
func encodedSize(f keel.FilePart) int64 {
	if f.Source() != keel.SourceDataURL {
		return int64(len(f.Data))
	}
	header, payload, _ := strings.Cut(f.URL, ",")
	if strings.HasSuffix(strings.ToLower(header), ";base64") {
		n := len(strings.TrimRight(strings.TrimSpace(payload), "="))
		return int64(n) * 3 / 4
	}
	return int64(len(payload) - 2*strings.Count(payload, "%"))
}

// RewriteLLMRequest uploads the chosen files of the prompt's user
// messages and puts their notes in their place.
func (p *FileUpload) RewriteLLMRequest(ctx context.Context, req *LLMRequest) error {
	if req == nil || req.Run == nil {
		return nil
	}
	st := StateOf[fileUploadState](req.Run, p)
	st.mu.Lock()
	defer st.mu.Unlock()
	return rewriteFiles(req, FileUploadID, isUser, func(f keel.FilePart) (replacement, bool, bool, error) {
		return p.replacement(ctx, req.Run, st, f)
	})
}

// replacement returns what takes f's place in the prompt (ok false to
// leave f): the note, then, with converters that know the file, its
// text; first reports that this call is the run's first for f.
func (p *FileUpload) replacement(ctx context.Context, run *Run, st *fileUploadState, f keel.FilePart) (rep replacement, ok, first bool, err error) {
	c, chosen, err := p.read(run, f)
	if err != nil || !chosen {
		// A filter that cannot judge a file, of this turn or of the
		// history, stops the turn, as does a wrong MaxSize.
		return rep, false, false, err
	}
	pf := &c.promptFile
	current := pf.err == nil && pf.sum != "" && st.turn[pf.sum]
	rep, first, err = st.done.once(fileKey(f, pf.sum, f.Filename), func() (replacement, error) {
		if c.fail != nil {
			return p.failed(run, replacement{file: pf.recovered()}, current, pf.name, c.fail)
		}
		pf.decode()
		rep, fail := pf.upload(ctx, sandboxTarget{run: run, ws: p.ws, limit: c.limit, uploaded: &st.uploaded})
		if fail != nil {
			return p.failed(run, rep, current, pf.name, fail)
		}
		if p.converters != nil {
			conv := convertCached(ctx, p.converters, &st.texts, pf, func(err error) {
				if run.Logger != nil {
					run.Logger.Warn("file-upload: file could not be converted to text; its note sent alone", "file", pf.name, "err", err)
				}
			})
			rep.withText(pf.name, conv)
		}
		return rep, nil
	})
	return rep, err == nil, first, err
}

// failed is what a failure to upload a chosen file does: it stops the run
// for a file of the current turn; a file of the history gets a note with
// the reason instead, the same on every call.
func (p *FileUpload) failed(run *Run, rep replacement, current bool, name string, fail *uploadFailure) (replacement, error) {
	if fail.code == CodeUploadFailed && run.Logger != nil {
		run.Logger.Warn("file-upload: upload to the sandbox failed", "file", name, "err", fail.err)
	}
	if current {
		return rep, fail.stop(name)
	}
	rep.notUploaded(name, fail.reason)
	return rep, nil
}
