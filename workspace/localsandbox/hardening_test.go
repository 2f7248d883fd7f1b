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
// a directory it cannot enter, which keel mounts for bubblewrap. As root
// each sandbox is a tmpfs of its own: a bind mount shows in
// /proc/self/mountinfo the directory's path within its file system, so
// only a sandbox on a file system of its own keeps its host location out
// of sight (see the package documentation); and a command that overshoots
// its disk quota, as the quota allows between two measurements, fills its
// own file system, never the next sandbox's.
func TestHardened(t *testing.T) {
	requireBwrap(t)
	for _, tc := range []struct {
		name   string
		closed bool
	}{{"reachable", false}, {"below a closed directory", true}} {
		t.Run(tc.name, func(t *testing.T) {
			root := sandboxtest.ReachableTempDir(t)
			h := sandboxtest.Hardened{HostPath: func(sb workspace.Sandbox) string { return sb.(*localsandbox.Sandbox).Dir() }}
			root, mount := hardenedRoot(t, root, tc.closed)
			if !mount {
				// Without root nothing can be mounted, and the dedicated user
				// does not apply: those two checks are skipped, saying so.
				h.HostPath = nil
			}
			n := 0
			h.New = func(t *testing.T, l sandboxtest.Limits) workspace.Sandbox {
				n++
				dir := filepath.Join(root, fmt.Sprintf("sb%d", n))
				if mount {
					mountTmpfs(t, dir)
				}
				sb, err := localsandbox.New(dir, localsandbox.Options{Limits: localsandbox.Limits(l)})
				if err != nil {
					t.Fatal(err)
				}
				if st := sb.Status(); !sb.Isolated() || st.Mounted != tc.closed {
					t.Fatalf("Got(Isolated(), Mounted) = %v, %v (%v); want true, %v", sb.Isolated(), st.Mounted, st.Off, tc.closed)
				}
				return sb
			}
			sandboxtest.RunHardened(t, h)
		})
	}
}

// hardenedRoot returns the directory for the hardened sandboxes, below a
// directory only root may enter when closed, and whether each sandbox is
// to be a tmpfs of its own: only root can mount one.
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
