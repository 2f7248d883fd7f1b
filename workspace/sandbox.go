package workspace

import (
	"context"
	"errors"
	"io/fs"
	"time"
)

// Sandbox is a place where an agent's files live and its commands run.
// The base contract only names the sandbox; what it can do is told by the
// optional capabilities it implements, found by type assertion:
// [FileSystem] (read and write files), [CommandRunner] (run shell
// commands), [TreeRemover] (remove a directory tree) and [WorkDirer] (the
// absolute working directory commands see).
// Paths given to a sandbox are relative to its working directory and use
// forward slashes; a sandbox refuses paths that leave it with an error
// wrapping [ErrPathEscapes].
//
// Implementations are safe for concurrent use.
type Sandbox interface {
	// ID names the sandbox, for logs and notes.
	ID() string
}

// FileSystem is the capability to read and write files in a sandbox.
type FileSystem interface {
	Sandbox
	// WriteFile creates or truncates the file at path with data, creating
	// its parent directories.
	WriteFile(ctx context.Context, path string, data []byte) error
	// ReadFile returns the content of the file at path.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Stat describes the file at path; a missing file gives an error
	// wrapping fs.ErrNotExist.
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// Rename moves oldpath to newpath, replacing newpath atomically.
	Rename(ctx context.Context, oldpath, newpath string) error
	// Remove deletes the file at path; a missing file is not an error.
	Remove(ctx context.Context, path string) error
	// ReadDir lists the directory at path, sorted by name.
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
}

// CommandRunner is the capability to run shell commands in a sandbox.
type CommandRunner interface {
	Sandbox
	// RunCommand runs cmd.Line with sh -c in the sandbox's working
	// directory. A command that ran and exited non-zero is not an error: its
	// exit code is in the result. Errors report that it could not run, timed
	// out or was cancelled; the whole process tree is ended then.
	RunCommand(ctx context.Context, cmd Command) (*CommandResult, error)
}

// TreeRemover is the capability to remove a whole directory tree in a
// sandbox, such as the uploads of a thread that was deleted.
type TreeRemover interface {
	Sandbox
	// RemoveAll removes path and everything under it. A missing path is
	// not an error. It never follows a symbolic link out of the sandbox: a
	// path through a link that leads out is refused with an error wrapping
	// [ErrPathEscapes] (a sandbox may refuse a path through any link), and
	// a link at path is removed, not what it points to. The working
	// directory itself ("" or ".") cannot be removed.
	RemoveAll(ctx context.Context, path string) error
}

// WorkDirer is the capability to tell the absolute working directory that
// the sandbox's commands see, such as "/home/user".
type WorkDirer interface {
	WorkDir() string
}

// Command is a shell command for a [CommandRunner].
type Command struct {
	// Line is the shell command, run with sh -c. Every value in it that
	// came from outside must be quoted with [ShellQuote].
	Line string
	// Stdin, if set, is the command's standard input.
	Stdin []byte
	// Timeout ends the command after this long; 0 means the sandbox's
	// default.
	Timeout time.Duration
}

// CommandResult is what a command did.
type CommandResult struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	// Truncated reports that output beyond the sandbox's cap was dropped.
	Truncated bool
	Duration  time.Duration
}

// ErrPathEscapes reports a path that would leave the sandbox: absolute,
// with "..", or through a symbolic link that points outside.
var ErrPathEscapes = errors.New("workspace: path escapes the sandbox")

// ErrQuotaExceeded reports that a sandbox holds as much as its disk quota
// allows: a write or upload that would go over it is refused with an
// error wrapping ErrQuotaExceeded and nothing is written. Commands still
// run, so that files can be removed; a command that leaves the sandbox
// over its quota returns its result as usual, with a line at the end of
// its Stderr saying so. Callers use errors.Is to tell the user that
// the sandbox is full and files must be removed to go on.
var ErrQuotaExceeded = errors.New("workspace: sandbox disk quota exceeded")

// ErrNoSandbox reports that no sandbox could be had for a run.
var ErrNoSandbox = errors.New("workspace: no sandbox")
