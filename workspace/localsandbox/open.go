package localsandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/sandboxpath"
	"golang.org/x/sys/unix"
)

// Opening a file a command may have made must neither block nor follow a
// link: open(2) of a FIFO without a writer waits forever, holding an OS
// thread (40 such reads once took keel from 10 to 48 threads, and none
// of those requests ended), and a link can point anywhere. So files are
// opened with O_NONBLOCK|O_NOFOLLOW, beneath the sandbox's directory
// with no link on the way (openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS, or a walk of openat calls each with O_NOFOLLOW on
// kernels before 5.6), and what was opened is described by fstat on the
// same descriptor: nothing can be swapped between the check and the
// read.

// openFlags open a file for reading without blocking on a FIFO and
// without making a terminal keel's.
const openFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_NOCTTY | unix.O_CLOEXEC

// noOpenat2 is set once openat2 proved missing (ENOSYS, or refused by a
// container's seccomp profile), so that later opens go straight to the
// walk.
var noOpenat2 atomic.Bool

// OpenFile opens the regular file at name for reading, without following
// any symbolic link and without blocking: see [workspace.FileOpener]. The
// result is an *os.File, so it can seek.
func (s *Sandbox) OpenFile(ctx context.Context, name string) (workspace.OpenedFile, error) {
	f, err := s.openNoFollow(ctx, "open file", name, false)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// openNoFollow opens name beneath the sandbox's directory, a regular file
// (or, with dir, a directory), and refuses anything else with an error
// wrapping [workspace.ErrNotRegularFile].
func (s *Sandbox) openNoFollow(ctx context.Context, op, name string, dir bool) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localsandbox: %s: %w", op, err)
	}
	clean, err := sandboxpath.Clean(name)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: %s: %w", op, err)
	}
	root, err := unix.Open(s.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: %s: %w", op, &fs.PathError{Op: "open", Path: s.dir, Err: err})
	}
	defer unix.Close(root)
	fd, err := openBeneath(root, clean)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: %s %q: %w", op, name, openError(err))
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("localsandbox: %s %q: %w", op, name, err)
	}
	kind := st.Mode & unix.S_IFMT
	if kind != unix.S_IFREG && !(dir && kind == unix.S_IFDIR) {
		unix.Close(fd)
		return nil, fmt.Errorf("localsandbox: %s %q: %w: it is %s", op, name, workspace.ErrNotRegularFile, kindName(kind))
	}
	// Regular files and directories never block; a plain descriptor keeps
	// them off the network poller.
	_ = unix.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), clean), nil
}

// openBeneath opens the relative, cleaned path clean below the directory
// root without following any link.
func openBeneath(root int, clean string) (int, error) {
	if !noOpenat2.Load() {
		fd, err := unix.Openat2(root, clean, &unix.OpenHow{
			Flags:   openFlags,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err != unix.ENOSYS && err != unix.EPERM {
			return fd, err
		}
		noOpenat2.Store(true)
	}
	return walkNoFollow(root, clean)
}

// walkNoFollow is openBeneath for kernels without openat2: each
// directory on the way is opened with O_NOFOLLOW|O_DIRECTORY from the one
// before, so a link anywhere fails with ELOOP or ENOTDIR. clean holds no
// ".." (sandboxpath.Clean refuses it), so the walk cannot climb.
func walkNoFollow(root int, clean string) (int, error) {
	if clean == "." {
		return unix.Openat(root, ".", openFlags, 0)
	}
	parts := strings.Split(clean, "/")
	dirfd := root
	for i, p := range parts {
		flags := openFlags
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		}
		fd, err := unix.Openat(dirfd, p, flags, 0)
		if dirfd != root {
			unix.Close(dirfd)
		}
		if err != nil {
			if err == unix.ENOTDIR && i < len(parts)-1 {
				// A link (or a file) where a directory should be.
				err = unix.ELOOP
			}
			return -1, err
		}
		dirfd = fd
	}
	return dirfd, nil
}

// openError turns what opening a path failed with into the contract's
// errors: a link on the way is not a regular file, a path that leaves is
// an escape; a missing file's ENOENT already is fs.ErrNotExist.
func openError(err error) error {
	switch {
	case errors.Is(err, unix.ELOOP):
		return fmt.Errorf("%w: the path is or passes through a symbolic link, which is not followed", workspace.ErrNotRegularFile)
	case errors.Is(err, unix.EXDEV):
		return workspace.ErrPathEscapes
	case errors.Is(err, unix.ENXIO):
		// A socket, or a device without its driver.
		return fmt.Errorf("%w: it is a socket or a device", workspace.ErrNotRegularFile)
	}
	return err
}

// kindName says what a file of type kind (st_mode & S_IFMT) is, for an
// error.
func kindName(kind uint32) string {
	switch kind {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a FIFO (named pipe)"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}

// checkOpened refuses, with an error wrapping
// [workspace.ErrNotRegularFile], a file opened through os.Root that is
// not a regular file (or, with dir, a directory), and closes it then.
func checkOpened(f *os.File, dir bool) error {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	m := fi.Mode()
	if m.IsRegular() || (dir && m.IsDir()) {
		return nil
	}
	f.Close()
	kind := uint32(unix.S_IFREG)
	switch {
	case m.IsDir():
		kind = unix.S_IFDIR
	case m&fs.ModeNamedPipe != 0:
		kind = unix.S_IFIFO
	case m&fs.ModeSocket != 0:
		kind = unix.S_IFSOCK
	case m&fs.ModeDevice != 0:
		kind = unix.S_IFCHR
	}
	return fmt.Errorf("%w: it is %s", workspace.ErrNotRegularFile, kindName(kind))
}
