package workspace

import (
	"context"
	"errors"
	"io"
	"io/fs"
)

// FileOpener is the capability to open a file of a sandbox for reading
// without loading it whole: read_file reads at most what it shows, and a
// download streams the file. A file is opened once and described from that
// same open file, so what is checked is what is read.
//
// Opening never blocks and never follows a symbolic link: a FIFO, a
// socket, a device, a directory or a link (at the end of the path or on
// the way to it) is refused with an error wrapping [ErrNotRegularFile],
// a path that leaves the sandbox with one wrapping [ErrPathEscapes], a
// missing file with one wrapping fs.ErrNotExist.
type FileOpener interface {
	Sandbox
	// OpenFile opens the regular file at path for reading. The caller
	// closes it.
	OpenFile(ctx context.Context, path string) (OpenedFile, error)
}

// OpenedFile is a sandbox file open for reading. Stat describes the file
// that was opened (its size is what Read reaches, unless the file changes
// meanwhile). An OpenedFile may also be an io.Seeker (a local file is; a
// file streamed out of a container's archive is not): callers find out by
// type assertion, and seek only then.
type OpenedFile interface {
	io.ReadCloser
	Stat() (fs.FileInfo, error)
}

// ErrNotRegularFile reports a path that names something other than a
// regular file where one is needed: a directory, a FIFO, a socket, a
// device or a symbolic link. Sandbox file access refuses them rather than
// block on a FIFO or read a device.
var ErrNotRegularFile = errors.New("workspace: not a regular file")
