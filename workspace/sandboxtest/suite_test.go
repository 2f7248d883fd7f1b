package sandboxtest_test

import (
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// The in-memory sandbox of keeltest passes the file checks; the command
// checks skip, saying it cannot run commands.
func TestInMemorySandbox(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox { return keeltest.NewSandbox(t.Name()) })
}
