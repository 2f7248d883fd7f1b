package localsandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Root inside a user namespace is still uid 0 to the host's file
// permission checks: a command running as it could write root's files in
// /proc/sys. So when keel runs as root, commands run as a dedicated
// unprivileged user, who owns the sandboxes' files; otherwise they run as
// keel's own user. Either way the user namespace shows them as InsideUID.

// runAs is the host user a sandbox's commands run as.
type runAs struct {
	uid, gid int
	// dedicated is set when keel runs as root: commands run as uid/gid,
	// which own the sandbox's files.
	dedicated bool
}

// userFor returns who runs commands for a keel running as the current
// user.
func userFor(o Options) runAs {
	if os.Geteuid() != 0 {
		return runAs{uid: os.Getuid(), gid: os.Getgid()}
	}
	return runAs{uid: o.UID, gid: o.GID, dedicated: true}
}

// own gives the sandbox in dir to the dedicated user. A directory that
// is not its yet (made by an older keel, or given by the caller) is
// given with everything in it, without following symbolic links.
func (u runAs) own(dir string) error {
	if !u.dedicated {
		return nil
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == u.uid && int(st.Gid) == u.gid {
		return nil
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := u.chownTree(r, "."); err != nil {
		return fmt.Errorf("give the sandbox to uid %d: %w", u.uid, err)
	}
	return nil
}

// chownTree gives name and everything under it to u; r keeps it inside
// the sandbox even if a command swaps a directory for a link meanwhile.
func (u runAs) chownTree(r *os.Root, name string) error {
	if err := r.Lchown(name, u.uid, u.gid); err != nil {
		return err
	}
	fi, err := r.Lstat(name)
	if err != nil || !fi.IsDir() {
		return err
	}
	f, err := r.Open(name)
	if err != nil {
		return err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := u.chownTree(r, path.Join(name, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// mkdirAll makes dir and its missing parents in r, each given to u.
func (u runAs) mkdirAll(r *os.Root, dir string) error {
	if !u.dedicated {
		return r.MkdirAll(dir, 0o755)
	}
	p := ""
	for _, part := range strings.Split(dir, "/") {
		p = path.Join(p, part)
		err := r.Mkdir(p, 0o755)
		switch {
		case err == nil:
			if err := r.Lchown(p, u.uid, u.gid); err != nil {
				return err
			}
		case !errors.Is(err, fs.ErrExist):
			return err
		}
	}
	return nil
}

// reach checks that the dedicated user can enter every directory down to
// dir: bubblewrap, running as that user, resolves the sandbox's path
// before it mounts it. bin is the bwrap binary ("" when unisolated). The
// mode bits decide; a directory with an access control list is left to
// bwrap, which will say if the list shuts the user out.
func (u runAs) reach(dir, bin string) error {
	if !u.dedicated {
		return nil
	}
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		perm := fi.Mode().Perm()
		if !ok || perm&0o001 != 0 || (int(st.Uid) == u.uid && perm&0o100 != 0) || (int(st.Gid) == u.gid && perm&0o010 != 0) {
			continue
		}
		if n, err := unix.Getxattr(d, "system.posix_acl_access", nil); err == nil && n > 0 {
			continue
		}
		return &IsolationError{
			Bwrap: bin,
			Reason: fmt.Sprintf("uid %d, which runs them, cannot enter %s (mode %04o, owner uid %d)",
				u.uid, d, perm, st.Uid),
			Hint: fmt.Sprintf("keep the sandboxes where that user can reach them (such as /var/lib/keel/sandbox), "+
				"or let it through: setfacl -m u:%d:x %s", u.uid, d),
		}
	}
	return nil
}
