package dockersandbox_test

import (
	"context"
	"os"
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
