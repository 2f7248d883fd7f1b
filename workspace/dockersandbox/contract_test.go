package dockersandbox_test

import (
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// newSandbox returns a fresh sandbox of its own key on the test engine,
// removed with its volume when t ends.
func newSandbox(t *testing.T, opts dockersandbox.Options) *dockersandbox.Sandbox {
	t.Helper()
	e := dockertest.Engine(t)
	if opts.Image == "" {
		opts.Image = dockertest.Image
	}
	opts.Prefix = dockertest.Prefix(t, e)
	sb, err := dockersandbox.New(e, "sb", opts)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// TestConformance runs the sandbox conformance suite on Docker.
func TestConformance(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox { return newSandbox(t, dockersandbox.Options{}) })
}
