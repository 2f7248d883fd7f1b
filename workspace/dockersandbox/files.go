package dockersandbox

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/diskquota"
)

// Files travel through the engine's archive API as tar streams: a file is
// written by a PUT of a tar holding it (and the directories it needs)
// into the deepest directory on its way that exists, and read by a GET,
// both streamed. Renames, removals and listings have no archive call and
// run as short commands in the container.

// withContainer runs op, and once more after making the container run
// when op found it gone.
func (s *Sandbox) withContainer(ctx context.Context, what, name string, op func() error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("dockersandbox: %s: %w", what, err)
	}
	err := op()
	if errors.Is(err, errContainerGone) {
		if err = s.ensure(ctx); err == nil {
			err = op()
		}
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, workspace.ErrPathEscapes), errors.Is(err, workspace.ErrQuotaExceeded):
		return fmt.Errorf("dockersandbox: %s: %w", what, err)
	}
	return fmt.Errorf("dockersandbox: %s %q: %w", what, name, err)
}

// Stat describes the file at name, following symbolic links inside the
// sandbox.
func (s *Sandbox) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := s.withContainer(ctx, "stat", name, func() error {
		r, err := s.resolve(ctx, name, true)
		if err != nil {
			return err
		}
		if r.st == nil {
			return fs.ErrNotExist
		}
		st := *r.st
		st.Name = path.Base(path.Clean("/" + name))
		fi = fileInfo{st}
		return nil
	})
	return fi, err
}

// ReadFile returns the content of the file at name. Anything but a
// regular file is an error wrapping [workspace.ErrNotRegularFile].
func (s *Sandbox) ReadFile(ctx context.Context, name string) ([]byte, error) {
	var data []byte
	err := s.withContainer(ctx, "read file", name, func() error {
		f, err := s.open(ctx, name, true)
		if err != nil {
			return err
		}
		defer f.Close()
		data = make([]byte, f.hdr.Size)
		if _, err := io.ReadFull(f, data); err != nil {
			return fmt.Errorf("read the engine's archive: %w", err)
		}
		return nil
	})
	return data, err
}

// WriteFile creates or truncates the file at name with data, creating its
// parent directories, owned by the sandbox's user. A write that would
// take the sandbox over its disk quota is refused with an error wrapping
// [workspace.ErrQuotaExceeded], and nothing is written.
func (s *Sandbox) WriteFile(ctx context.Context, name string, data []byte) error {
	return s.withContainer(ctx, "write file", name, func() error {
		r, err := s.resolve(ctx, name, true)
		if err != nil {
			return err
		}
		grow := int64(len(data))
		dir, entries := path.Dir(r.abs), []string{path.Base(r.abs)}
		switch {
		case r.st == nil:
			dir, entries = r.dir, r.missing
		case r.st.Mode.IsDir():
			return &fs.PathError{Op: "write", Path: name, Err: syscall.EISDIR}
		case r.st.Mode.IsRegular():
			grow -= r.st.Size
		default:
			// The engine would replace a named pipe or a device with
			// the file; the contract refuses it.
			return fmt.Errorf("%w: it is a %s", workspace.ErrNotRegularFile, kind(r.st.Mode))
		}
		if s.opts.Limits.Disk >= 0 {
			used, err := s.measure(ctx)
			if err := diskquota.Room(s.opts.Limits.Disk, used, grow, err); err != nil {
				return err
			}
		}
		return s.put(ctx, dir, entries, data)
	})
}

// put writes a tar into the container directory dir: a directory for
// each of entries but the last, nested, and the last as a file of data.
func (s *Sandbox) put(ctx context.Context, dir string, entries []string, data []byte) error {
	pr, pw := io.Pipe()
	go func() {
		tw := tar.NewWriter(pw)
		now := time.Now()
		rel := ""
		for i, e := range entries {
			rel = path.Join(rel, e)
			h := &tar.Header{Name: rel, Uid: s.opts.UID, Gid: s.opts.GID, ModTime: now, Format: tar.FormatPAX}
			if i < len(entries)-1 {
				h.Typeflag, h.Name, h.Mode = tar.TypeDir, rel+"/", 0o755
			} else {
				h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(data))
			}
			if err := tw.WriteHeader(h); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		if _, err := tw.Write(data); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(tw.Close())
	}()
	q := url.Values{"path": {dir}, "noOverwriteDirNonDir": {"true"}}
	resp, err := s.engine.do(ctx, "PUT", "/containers/"+s.name+"/archive", q, pr, "application/x-tar")
	pr.Close()
	if isStatus(err, 404) && strings.Contains(err.Error(), "No such container") {
		return errContainerGone
	}
	if err != nil {
		return err
	}
	drain(resp)
	return nil
}

// Rename moves oldname to newname, replacing newname atomically, and
// creates newname's parent directories. A link at oldname is moved, not
// what it points to.
func (s *Sandbox) Rename(ctx context.Context, oldname, newname string) error {
	return s.withContainer(ctx, "rename", oldname, func() error {
		from, err := s.resolve(ctx, oldname, false)
		if err != nil {
			return err
		}
		if from.st == nil {
			return fs.ErrNotExist
		}
		to, err := s.resolve(ctx, newname, false)
		if err != nil {
			return err
		}
		if from.abs == HomeDir || to.abs == HomeDir {
			return fmt.Errorf("%w: cannot rename the working directory", workspace.ErrPathEscapes)
		}
		return s.shell(ctx, `mkdir -p -- "$(dirname -- "$2")" && mv -f -T -- "$1" "$2"`, from.abs, to.abs)
	})
}

// Remove deletes the file or empty directory at name; a missing one is
// not an error. A symbolic link is removed, not what it points to.
func (s *Sandbox) Remove(ctx context.Context, name string) error {
	return s.remove(ctx, "remove", name, false)
}

// RemoveAll removes the file or directory tree at name; a missing one is
// not an error. A symbolic link is removed, not what it points to, and a
// path through a link that leads out of the sandbox is refused with
// [workspace.ErrPathEscapes].
func (s *Sandbox) RemoveAll(ctx context.Context, name string) error {
	return s.remove(ctx, "remove all", name, true)
}

// remove removes name, with what is under it when all is set.
func (s *Sandbox) remove(ctx context.Context, what, name string, all bool) error {
	return s.withContainer(ctx, what, name, func() error {
		r, err := s.resolve(ctx, name, false)
		switch {
		case err != nil:
			return err
		case r.abs == HomeDir:
			return fmt.Errorf("%w: cannot remove the sandbox itself", workspace.ErrPathEscapes)
		case r.st == nil:
			return nil
		case all:
			return s.shell(ctx, `rm -rf -- "$1"`, r.abs)
		case r.st.Mode.IsDir():
			return s.shell(ctx, `rmdir -- "$1"`, r.abs)
		}
		return s.shell(ctx, `rm -f -- "$1"`, r.abs)
	})
}

// shell runs script with args as $1... in the container, for keel's own
// file operations, and returns its error output as an error when it
// fails.
func (s *Sandbox) shell(ctx context.Context, script string, args ...string) error {
	line := "set -- " + quoteArgs(args) + "\n" + script
	res, err := s.exec(ctx, execRequest{line: line, timeout: s.opts.CommandTimeout, maxOutput: 4096})
	if err != nil {
		return err
	}
	if res.exit != 0 {
		return fmt.Errorf("exit status %d: %s", res.exit, strings.TrimSpace(string(res.stderr)))
	}
	return nil
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = workspace.ShellQuote(a)
	}
	return strings.Join(q, " ")
}
