package localsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/sandboxpath"
)

// The file operations go through an os.Root opened on the sandbox's
// directory for each call: it resolves every path component below the
// directory and refuses symbolic links that lead out of it, including
// links a command planted inside the sandbox (an absolute link such as
// /etc/passwd means the host's file here, not the sandbox's). Opening it
// per call keeps a Sandbox free of open descriptors, so a resolver can make
// one per user without closing anything.

// WriteFile creates or truncates the file at name with data, creating its
// parent directories. A write that would take the sandbox over its disk
// quota is refused with an error wrapping [workspace.ErrQuotaExceeded],
// and nothing is written.
func (s *Sandbox) WriteFile(ctx context.Context, name string, data []byte) error {
	return s.withRoot(ctx, "write file", name, func(r *os.Root, clean string) error {
		grow := int64(len(data))
		if fi, err := r.Stat(clean); err == nil && fi.Mode().IsRegular() {
			grow -= fi.Size()
		}
		if err := s.checkRoom(grow); err != nil {
			return err
		}
		if dir := path.Dir(clean); dir != "." {
			if err := s.user.mkdirAll(r, dir); err != nil {
				return err
			}
		}
		// O_NONBLOCK: opening a FIFO for writing would wait for a reader.
		f, err := r.OpenFile(clean, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
		if err != nil {
			return err
		}
		if err := checkOpened(f, false); err != nil {
			return err
		}
		// Given to the commands' user before a byte is written: a keel
		// killed mid-write leaves a file they can remove, not root's.
		if s.user.dedicated {
			err = f.Chown(s.user.uid, s.user.gid)
		}
		if err == nil {
			_, err = f.Write(data)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// ReadFile returns the content of the regular file at name, following
// symbolic links that stay inside the sandbox. Anything but a regular
// file is refused with an error wrapping [workspace.ErrNotRegularFile],
// without blocking: a FIFO is opened with O_NONBLOCK and described by
// fstat before anything is read. Code that needs only part of a file uses
// [Sandbox.OpenFile].
func (s *Sandbox) ReadFile(ctx context.Context, name string) ([]byte, error) {
	var data []byte
	err := s.withRoot(ctx, "read file", name, func(r *os.Root, clean string) error {
		f, err := r.OpenFile(clean, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil {
			return err
		}
		if err := checkOpened(f, false); err != nil {
			return err
		}
		defer f.Close()
		data, err = io.ReadAll(f)
		return err
	})
	return data, err
}

// Stat describes the file at name, following symbolic links inside the
// sandbox.
func (s *Sandbox) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := s.withRoot(ctx, "stat", name, func(r *os.Root, clean string) error {
		var err error
		fi, err = r.Stat(clean)
		return err
	})
	return fi, err
}

// Rename moves oldname to newname, replacing newname atomically, and
// creates newname's parent directories.
func (s *Sandbox) Rename(ctx context.Context, oldname, newname string) error {
	cleanNew, err := sandboxpath.Clean(newname)
	if err != nil {
		return fmt.Errorf("localsandbox: rename: %w", err)
	}
	return s.withRoot(ctx, "rename", oldname, func(r *os.Root, cleanOld string) error {
		if dir := path.Dir(cleanNew); dir != "." {
			if err := s.user.mkdirAll(r, dir); err != nil {
				return err
			}
		}
		return r.Rename(cleanOld, cleanNew)
	})
}

// Remove deletes the file or empty directory at name; a missing file is
// not an error. A symbolic link is removed, not what it points to.
func (s *Sandbox) Remove(ctx context.Context, name string) error {
	return s.withRoot(ctx, "remove", name, func(r *os.Root, clean string) error {
		if clean == "." {
			return fmt.Errorf("%w: cannot remove the sandbox itself", workspace.ErrPathEscapes)
		}
		if err := r.Remove(clean); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// RemoveAll removes the file or directory tree at name; a missing one is
// not an error. A symbolic link is removed, not what it points to, and a
// path through a link that leads out of the sandbox is refused with
// [workspace.ErrPathEscapes].
func (s *Sandbox) RemoveAll(ctx context.Context, name string) error {
	return s.withRoot(ctx, "remove all", name, func(r *os.Root, clean string) error {
		if clean == "." {
			return fmt.Errorf("%w: cannot remove the sandbox itself", workspace.ErrPathEscapes)
		}
		return r.RemoveAll(clean)
	})
}

// ReadDir lists the directory at name ("" or "." for the working
// directory), sorted by name.
func (s *Sandbox) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	var entries []fs.DirEntry
	err := s.withRoot(ctx, "read dir", name, func(r *os.Root, clean string) error {
		// O_DIRECTORY and O_NONBLOCK: a FIFO at name is refused at once
		// rather than waited on.
		f, err := r.OpenFile(clean, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		entries, err = f.ReadDir(-1)
		if err != nil {
			return err
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		return nil
	})
	return entries, err
}

func (s *Sandbox) withRoot(ctx context.Context, op, name string, fn func(r *os.Root, clean string) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localsandbox: %s: %w", op, err)
	}
	clean, err := sandboxpath.Clean(name)
	if err != nil {
		return fmt.Errorf("localsandbox: %s: %w", op, err)
	}
	r, err := os.OpenRoot(s.dir)
	if err != nil {
		return fmt.Errorf("localsandbox: %s: %w", op, err)
	}
	defer r.Close()
	if err := fn(r, clean); err != nil {
		if isEscape(err) {
			return fmt.Errorf("localsandbox: %s %q: %w", op, name, workspace.ErrPathEscapes)
		}
		return fmt.Errorf("localsandbox: %s: %w", op, err)
	}
	return nil
}

// isEscape recognises os.Root's refusal of a path that leads out of the
// root. The standard library does not export that error, so its text is
// matched; a test pins it.
func isEscape(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}
