package keeltest

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel/workspace"
)

// SandboxWorkDir is the working directory a [Sandbox] reports, the home
// directory of keel's local sandboxes.
const SandboxWorkDir = "/home/user"

// Sandbox is an in-memory [workspace.FileSystem], [workspace.FileOpener],
// [workspace.TreeRemover] and [workspace.WorkDirer] for tests: files live in a map, every WriteFile is recorded, and writes
// can be made to fail. It cannot run commands, so code that needs a
// [workspace.CommandRunner] sees it lacks one, as it would with a real
// file-only sandbox.
//
// Paths follow the sandbox contract: relative to [SandboxWorkDir], with
// forward slashes. An absolute path or one that climbs out with ".." is
// refused with an error wrapping [workspace.ErrPathEscapes]; a missing
// file gives an error wrapping [fs.ErrNotExist]. Directories exist
// implicitly above every file and can also be left empty by Remove or
// Rename; "." is the root.
//
// A Sandbox is safe for concurrent use. Its zero value is not usable; call
// [NewSandbox].
type Sandbox struct {
	id string

	mu        sync.Mutex
	files     map[string]memFile
	dirs      map[string]time.Time
	writes    []Write
	failWrite error
}

// memFile is a stored file: its own copy of the content.
type memFile struct {
	data    []byte
	modTime time.Time
}

// Write records one call of [Sandbox.WriteFile].
type Write struct {
	// Path is the path as given, cleaned when it is valid.
	Path string
	// Len is len(data).
	Len int
	// Data is the caller's slice itself, not a copy, so a test can check
	// that the code under test passed its bytes through without copying
	// them (compare &Data[0] with the original's first byte). Do not
	// modify it.
	Data []byte
	// Err is what the call returned: nil, a path error, or the error set
	// by [Sandbox.FailWrites].
	Err error
}

// NewSandbox returns an empty sandbox whose ID is id.
func NewSandbox(id string) *Sandbox {
	return &Sandbox{
		id:    id,
		files: make(map[string]memFile),
		dirs:  map[string]time.Time{".": time.Now()},
	}
}

// ID returns the id given to [NewSandbox].
func (s *Sandbox) ID() string { return s.id }

// WorkDir returns [SandboxWorkDir].
func (s *Sandbox) WorkDir() string { return SandboxWorkDir }

// FailWrites makes every later WriteFile fail with err and store nothing;
// the calls are still recorded. A nil err makes writes succeed again.
func (s *Sandbox) FailWrites(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failWrite = err
}

// Writes returns every WriteFile call so far, failed ones included, in
// the order they were made.
func (s *Sandbox) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.writes)
}

// Files returns a copy of every file in the sandbox, by cleaned path.
// Changing the result does not change the sandbox.
func (s *Sandbox) Files() map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]byte, len(s.files))
	for p, f := range s.files {
		out[p] = slices.Clone(f.data)
	}
	return out
}

// WriteFile stores a copy of data at name, creating its parent
// directories, and records the call in [Sandbox.Writes].
func (s *Sandbox) WriteFile(ctx context.Context, name string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := clean(ctx, "write", name)
	if err != nil {
		p = name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		err = s.failWrite
	}
	if err == nil {
		err = s.writeLocked(p, data)
	}
	s.writes = append(s.writes, Write{Path: p, Len: len(data), Data: data, Err: err})
	return err
}

func (s *Sandbox) writeLocked(p string, data []byte) error {
	if p == "." {
		return &fs.PathError{Op: "write", Path: p, Err: fs.ErrInvalid}
	}
	if _, ok := s.dirs[p]; ok {
		return &fs.PathError{Op: "write", Path: p, Err: fmt.Errorf("is a directory: %w", fs.ErrInvalid)}
	}
	if err := s.mkdirAllLocked(path.Dir(p)); err != nil {
		return err
	}
	now := time.Now()
	s.files[p] = memFile{data: slices.Clone(data), modTime: now}
	return nil
}

// mkdirAllLocked makes dir and its parents, failing when one of them is a
// file.
func (s *Sandbox) mkdirAllLocked(dir string) error {
	if _, ok := s.dirs[dir]; ok {
		return nil
	}
	if _, ok := s.files[dir]; ok {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: fmt.Errorf("not a directory: %w", fs.ErrInvalid)}
	}
	if err := s.mkdirAllLocked(path.Dir(dir)); err != nil {
		return err
	}
	s.dirs[dir] = time.Now()
	return nil
}

// ReadFile returns a copy of the file at name.
func (s *Sandbox) ReadFile(ctx context.Context, name string) ([]byte, error) {
	p, err := clean(ctx, "read", name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	return slices.Clone(f.data), nil
}

// OpenFile opens the file at name for reading: a copy of its content,
// which can seek. A directory is refused with an error wrapping
// [workspace.ErrNotRegularFile].
func (s *Sandbox) OpenFile(ctx context.Context, name string) (workspace.OpenedFile, error) {
	p, err := clean(ctx, "open", name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dirs[p]; ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fmt.Errorf("%w: it is a directory", workspace.ErrNotRegularFile)}
	}
	f, ok := s.files[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	info, _ := s.infoLocked(p)
	return &openedFile{Reader: bytes.NewReader(slices.Clone(f.data)), info: info}, nil
}

// openedFile is a file [Sandbox.OpenFile] opened.
type openedFile struct {
	*bytes.Reader
	info fileInfo
}

func (f *openedFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openedFile) Close() error               { return nil }

var _ workspace.FileOpener = (*Sandbox)(nil)

// Stat describes the file or directory at name.
func (s *Sandbox) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	p, err := clean(ctx, "stat", name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if info, ok := s.infoLocked(p); ok {
		return info, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

func (s *Sandbox) infoLocked(p string) (fileInfo, bool) {
	if f, ok := s.files[p]; ok {
		return fileInfo{name: path.Base(p), size: int64(len(f.data)), mode: 0o644, modTime: f.modTime}, true
	}
	if t, ok := s.dirs[p]; ok {
		return fileInfo{name: path.Base(p), mode: fs.ModeDir | 0o755, modTime: t}, true
	}
	return fileInfo{}, false
}

// Rename moves the file at oldname to newname, replacing any file there.
// newname's directory must exist, as with a real file system; renaming a
// directory is not supported.
func (s *Sandbox) Rename(ctx context.Context, oldname, newname string) error {
	from, err := clean(ctx, "rename", oldname)
	if err != nil {
		return err
	}
	to, err := clean(ctx, "rename", newname)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[from]
	if !ok {
		if _, isDir := s.dirs[from]; isDir {
			return &fs.PathError{Op: "rename", Path: from, Err: fmt.Errorf("renaming a directory: %w", fs.ErrInvalid)}
		}
		return &fs.PathError{Op: "rename", Path: from, Err: fs.ErrNotExist}
	}
	if _, ok := s.dirs[path.Dir(to)]; !ok {
		return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrNotExist}
	}
	if _, isDir := s.dirs[to]; isDir {
		return &fs.PathError{Op: "rename", Path: to, Err: fmt.Errorf("is a directory: %w", fs.ErrExist)}
	}
	delete(s.files, from)
	s.files[to] = f
	return nil
}

// Remove deletes the file or empty directory at name; a missing one is
// not an error.
func (s *Sandbox) Remove(ctx context.Context, name string) error {
	p, err := clean(ctx, "remove", name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dirs[p]; ok {
		if p == "." || len(s.childrenLocked(p)) > 0 {
			return &fs.PathError{Op: "remove", Path: p, Err: fmt.Errorf("directory not empty: %w", fs.ErrInvalid)}
		}
		delete(s.dirs, p)
		return nil
	}
	delete(s.files, p)
	return nil
}

// RemoveAll deletes the file or directory at name and everything under
// it; a missing one is not an error. The root ("" or ".") cannot be
// removed. The sandbox has no symbolic links, so none is followed.
func (s *Sandbox) RemoveAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if name == "" {
		return &fs.PathError{Op: "removeall", Path: name, Err: workspace.ErrPathEscapes}
	}
	p, err := clean(ctx, "removeall", name)
	if err != nil {
		return err
	}
	if p == "." {
		return &fs.PathError{Op: "removeall", Path: name, Err: fmt.Errorf("the root: %w", workspace.ErrPathEscapes)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := p + "/"
	for f := range s.files {
		if f == p || strings.HasPrefix(f, prefix) {
			delete(s.files, f)
		}
	}
	for d := range s.dirs {
		if d == p || strings.HasPrefix(d, prefix) {
			delete(s.dirs, d)
		}
	}
	return nil
}

// ReadDir lists the directory at name, sorted by name.
func (s *Sandbox) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	p, err := clean(ctx, "readdir", name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dirs[p]; !ok {
		if _, isFile := s.files[p]; isFile {
			return nil, &fs.PathError{Op: "readdir", Path: p, Err: fmt.Errorf("not a directory: %w", fs.ErrInvalid)}
		}
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
	}
	names := s.childrenLocked(p)
	entries := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		info, _ := s.infoLocked(path.Join(p, n))
		entries = append(entries, fs.FileInfoToDirEntry(info))
	}
	return entries, nil
}

// childrenLocked returns the sorted names directly inside dir.
func (s *Sandbox) childrenLocked(dir string) []string {
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	var names []string
	add := func(p string) {
		rest, ok := strings.CutPrefix(p, prefix)
		if ok && p != "." && rest != "" && !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	for p := range s.files {
		add(p)
	}
	for p := range s.dirs {
		add(p)
	}
	slices.Sort(names)
	return names
}

// clean checks that ctx is not done and that name stays inside the
// sandbox, and returns name cleaned.
func clean(ctx context.Context, op, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if name == "" {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	p := path.Clean(name)
	if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return "", &fs.PathError{Op: op, Path: name, Err: workspace.ErrPathEscapes}
	}
	return p, nil
}

// fileInfo describes an in-memory file or directory.
type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return i.modTime }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any           { return nil }
