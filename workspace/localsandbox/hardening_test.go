package localsandbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// TestHardened runs the hardening suite against isolated sandboxes, as
// root in CI: sandboxes the dedicated user can reach, and sandboxes below
// a directory it cannot enter, which keel mounts for bubblewrap, each
// with a file system of its own (a loop-mounted image, which enforces
// the disk quota); and sandboxes whose quota is measured. Those are each
// a tmpfs of their own: a bind mount shows in /proc/self/mountinfo the
// directory's path within its file system, so only a sandbox on a file
// system of its own keeps its host location out of sight (see the package
// documentation); and a command that overshoots a measured quota, as it
// may by one interval's writes, fills its own tmpfs, never the host's
// disk.
func TestHardened(t *testing.T) {
	requireBwrap(t)
	// The suite makes this process a subreaper, as keel is when PID 1:
	// what commands orphan comes to it, and the reaper takes it.
	startReaper(t)
	for _, tc := range []struct {
		name     string
		closed   bool
		measured bool
	}{{"reachable", false, false}, {"below a closed directory", true, false}, {"measured quota", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			root := sandboxtest.ReachableTempDir(t)
			h := sandboxtest.Hardened{HostPath: func(sb workspace.Sandbox) string { return sb.(*localsandbox.Sandbox).Dir() }}
			root, asRoot := hardenedRoot(t, root, tc.closed)
			if !asRoot {
				// Without root nothing can be mounted, and the dedicated user
				// does not apply: those two checks are skipped, saying so.
				h.HostPath = nil
			}
			n := 0
			h.New = func(t *testing.T, l sandboxtest.Limits) workspace.Sandbox {
				n++
				dir := filepath.Join(root, fmt.Sprintf("sb%d", n))
				if asRoot && tc.measured {
					mountTmpfs(t, dir)
				}
				sb, err := localsandbox.New(dir, localsandbox.Options{Limits: localsandbox.Limits(l), OwnFilesystem: !tc.measured})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = localsandbox.Unmount(dir) })
				st := sb.Status()
				if !sb.Isolated() || st.Mounted != tc.closed {
					t.Fatalf("Got(Isolated(), Mounted) = %v, %v (%v); want true, %v", sb.Isolated(), st.Mounted, st.Off, tc.closed)
				}
				ownFS := st.Enforcement.Disk == localsandbox.OwnFilesystem
				if wantFS := asRoot && !tc.measured && l.Disk >= 0; ownFS != wantFS {
					t.Fatalf("Got(disk quota enforced by) %q (%s); want a file system of its own: %v", st.Enforcement.Disk, st.Enforcement.Why, wantFS)
				}
				return sb
			}
			sandboxtest.RunHardened(t, h)
		})
	}
}

// hardenedRoot returns the directory for the hardened sandboxes, below a
// directory only root may enter when closed, and whether keel runs as
// root: only root can mount.
func hardenedRoot(t *testing.T, root string, closed bool) (string, bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		if closed {
			t.Skip("only root hands sandboxes to a dedicated user, who may not reach them; CI runs as root")
		}
		return root, false
	}
	if closed {
		root = filepath.Join(root, "closed")
		if err := os.Mkdir(root, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return root, true
}

// mountTmpfs makes dir a tmpfs of its own until the test ends.
func mountTmpfs(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256m,mode=0700"); err != nil {
		t.Fatalf("Got(mount a tmpfs on %s) error %v; want a file system for the sandbox", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}
