package dockersandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// TestHardened runs the hardening suite on Docker. Its check that the
// host's root is mapped nowhere in the sandbox holds only on an engine
// that remaps users (dockerd --userns-remap, as scripts/test.sh starts
// it) or runs rootless: on another, root in a container is the host's
// root, so the test says so and skips (fails under CI). The sandboxes'
// files are in a volume the host path of which the suite cannot see, so
// its host path checks are skipped, saying so.
func TestHardened(t *testing.T) {
	e := dockertest.Engine(t)
	st, err := dockersandbox.Check(context.Background(), e, dockertest.Options(t, e))
	if err != nil {
		t.Fatal(err)
	}
	if !st.UsernsRemap {
		msg := "the engine does not remap users: the host's root is root in its containers; start dockerd with --userns-remap=default"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set, so this fails instead of skipping)")
		}
		t.Skip(msg)
	}
	sandboxtest.RunHardened(t, sandboxtest.Hardened{
		New: func(t *testing.T, l sandboxtest.Limits) workspace.Sandbox {
			return newSandbox(t, dockersandbox.Options{Limits: localsandbox.Limits(l)})
		},
	})
}

// TestHostOwner: a file a command makes belongs on the host to neither
// root nor, where the engine remaps users, the host's uid 1000 (the
// suite's host path checks are skipped above: a volume's host path shows
// in the container's /proc/self/mountinfo, as docs/docker.md says). It
// needs an engine of this machine (a unix socket).
func TestHostOwner(t *testing.T) {
	e := dockertest.Engine(t)
	if !strings.HasPrefix(e.Host(), "unix://") {
		t.Skipf("the engine at %s is not this machine's: its volumes' files cannot be looked at here", e.Host())
	}
	ctx := context.Background()
	st, err := dockersandbox.Check(ctx, e, dockertest.Options(t, e))
	if err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t, dockersandbox.Options{})
	mustRun(t, sb, "touch made-inside")
	dir, err := dockersandbox.VolumePath(ctx, sb)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "made-inside"))
	if err != nil {
		t.Fatalf("Got(stat of the file on the host) error %v; want the file in the volume at %s", err, dir)
	}
	uid := fi.Sys().(*syscall.Stat_t).Uid
	if uid == 0 || (st.UsernsRemap && uid == 1000) {
		t.Errorf("Got(host owner of a file a command made) = uid %d (users remapped: %v); want an unprivileged, remapped user", uid, st.UsernsRemap)
	}
}
