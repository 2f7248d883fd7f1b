package dockersandbox

import (
	"archive/tar"
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"syscall"

	"github.com/keel-go/keel/workspace"
)

// OpenFile opens the regular file at name for reading without following
// any symbolic link (at its end or on the way to it): see
// [workspace.FileOpener]. The caller must close it. Anything but a
// regular file is an error wrapping [workspace.ErrNotRegularFile], and is
// never read (a named pipe cannot block it). The file is read as a stream
// of the engine's archive API, as the caller reads it: a sparse file of a
// gigabyte costs what is read of it, not its size, since the stream ends
// when the file is closed. It cannot seek.
func (s *Sandbox) OpenFile(ctx context.Context, name string) (workspace.OpenedFile, error) {
	var f *archiveFile
	err := s.withContainer(ctx, "open file", name, func() error {
		var err error
		f, err = s.open(ctx, name, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// archiveFile is the one file of a tar stream the engine sends.
type archiveFile struct {
	resp *http.Response
	tr   *tar.Reader
	hdr  *tar.Header
	name string
}

func (f *archiveFile) Read(p []byte) (int, error) { return f.tr.Read(p) }

func (f *archiveFile) Close() error { return f.resp.Body.Close() }

func (f *archiveFile) Stat() (fs.FileInfo, error) {
	return fileInfo{pathStat{Name: f.name, Size: f.hdr.Size, Mode: f.hdr.FileInfo().Mode(), Mtime: f.hdr.ModTime}}, nil
}

// open resolves name and starts reading it from the engine; follow lets
// the path go through links that stay inside the sandbox, else a link on
// the way is refused.
func (s *Sandbox) open(ctx context.Context, name string, follow bool) (*archiveFile, error) {
	var r *resolved
	var err error
	if follow {
		r, err = s.resolve(ctx, name, true)
	} else {
		r, err = s.resolveNoLinks(ctx, name)
	}
	switch {
	case err != nil:
		return nil, err
	case r.st == nil:
		return nil, fs.ErrNotExist
	case r.st.Mode.IsDir():
		return nil, fmt.Errorf("%w: %w", workspace.ErrNotRegularFile, syscall.EISDIR)
	case !r.st.Mode.IsRegular():
		return nil, fmt.Errorf("%w: it is a %s", workspace.ErrNotRegularFile, kind(r.st.Mode))
	}
	resp, err := s.engine.do(ctx, "GET", "/containers/"+s.name+"/archive", url.Values{"path": {r.abs}}, nil, "")
	switch {
	case isStatus(err, 404) && strings.Contains(err.Error(), "No such container"):
		return nil, errContainerGone
	case isStatus(err, 404):
		return nil, fs.ErrNotExist
	case err != nil:
		return nil, err
	}
	tr := tar.NewReader(resp.Body)
	hdr, err := tr.Next()
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("read the engine's archive: %w", err)
	}
	if hdr.Typeflag != tar.TypeReg {
		// Swapped since it was resolved.
		resp.Body.Close()
		return nil, fmt.Errorf("%w: it is a %s", workspace.ErrNotRegularFile, kind(hdr.FileInfo().Mode()))
	}
	return &archiveFile{resp: resp, tr: tr, hdr: hdr, name: path.Base(path.Clean("/" + name))}, nil
}

// kind names a file's type for an error message.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}
