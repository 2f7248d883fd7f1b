package workspace_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// filesAndCommands hides a sandbox's WorkDirer: it writes files and runs
// commands, and does not tell where they run.
type filesAndCommands struct{ *localsandbox.Sandbox }

func (filesAndCommands) WorkDir() {} // not the WorkDirer method: hides it

// TestUploadAsksWhereCommandsRun: a sandbox that runs commands but does
// not tell its working directory gets the file where its commands run,
// and an absolute path that a command finds it at.
func TestUploadAsksWhereCommandsRun(t *testing.T) {
	sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), localsandbox.Options{AllowUnisolated: true})
	if err != nil {
		t.Fatal(err)
	}
	hidden := filesAndCommands{sb}
	if _, ok := any(hidden).(workspace.WorkDirer); ok {
		t.Fatal("Got(a WorkDirer); the test needs a sandbox that does not tell its directory")
	}
	ctx := context.Background()
	up, err := workspace.Upload(ctx, hidden, "thread-1", "", workspace.File{Name: "a.csv", Data: []byte("a,b\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(up.Path, "/") || !strings.HasSuffix(up.Path, "/"+up.RelPath) {
		t.Fatalf("Got(Path) = %q; want an absolute path ending in %s", up.Path, up.RelPath)
	}
	res, err := sb.RunCommand(ctx, workspace.Command{Line: "cat " + workspace.ShellQuote(up.Path)})
	if err != nil || res.ExitCode != 0 || string(res.Stdout) != "a,b\n" {
		t.Errorf("Got(cat %s) = %+v, %v; want the file's bytes", up.Path, res, err)
	}
}
