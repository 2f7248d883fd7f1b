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
// root in CI. As root the sandboxes live on a tmpfs of their own: a bind
// mount shows in /proc/self/mountinfo the directory's path within its
// file system, so only a sandbox root on its own file system keeps its
// host location out of sight (see the package documentation).
func TestHardened(t *testing.T) {
	requireBwrap(t)
	root := sandboxtest.ReachableTempDir(t)
	h := sandboxtest.Hardened{HostPath: func(sb workspace.Sandbox) string { return sb.(*localsandbox.Sandbox).Dir() }}
	if os.Geteuid() == 0 {
		if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=256m,mode=0755"); err != nil {
			t.Fatalf("Got(mount a tmpfs on %s) error %v; want a file system for the sandboxes", root, err)
		}
		t.Cleanup(func() { _ = syscall.Unmount(root, syscall.MNT_DETACH) })
	} else {
		// Without root nothing can be mounted, and the dedicated user
		// does not apply: those two checks are skipped, saying so.
		h.HostPath = nil
	}
	n := 0
	h.New = func(t *testing.T, l sandboxtest.Limits) workspace.Sandbox {
		n++
		sb, err := localsandbox.New(filepath.Join(root, fmt.Sprintf("sb%d", n)), localsandbox.Options{Limits: localsandbox.Limits(l)})
		if err != nil {
			t.Fatal(err)
		}
		if !sb.Isolated() {
			t.Fatalf("Got(Isolated()) = false (%v); want true", sb.Status().Off)
		}
		return sb
	}
	sandboxtest.RunHardened(t, h)
}
