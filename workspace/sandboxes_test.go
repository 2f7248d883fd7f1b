package workspace_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// newDirFS returns a local sandbox over a new temporary directory: a
// FileSystem kept inside it by os.Root, as deployments use.
func newDirFS(tb testing.TB) *localsandbox.Sandbox {
	tb.Helper()
	sb, err := localsandbox.New(tb.TempDir(), localsandbox.Options{AllowUnisolated: true})
	if err != nil {
		tb.Fatal(err)
	}
	return sb
}

// cmdSandbox can only run commands: sh -c in its directory, which it also
// reports as its working directory. failOn, when set, makes a command
// fail with exit status 1 before it runs, as a sandbox whose disk is full
// would; before runs ahead of every command.
type cmdSandbox struct {
	dir    string
	failOn func(line string) bool
	before func(line string)

	mu    sync.Mutex
	lines []string
}

func newCmdSandbox(t *testing.T) *cmdSandbox {
	t.Helper()
	if _, err := exec.LookPath("base64"); err != nil {
		t.Skipf("command sandbox needs base64 in PATH: %v", err)
	}
	dir := path.Join(t.TempDir(), "home")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &cmdSandbox{dir: dir}
}

func (c *cmdSandbox) ID() string      { return "cmd" }
func (c *cmdSandbox) WorkDir() string { return c.dir }

func (c *cmdSandbox) RunCommand(ctx context.Context, cmd workspace.Command) (*workspace.CommandResult, error) {
	c.mu.Lock()
	c.lines = append(c.lines, cmd.Line)
	c.mu.Unlock()
	if c.before != nil {
		c.before(cmd.Line)
	}
	if c.failOn != nil && c.failOn(cmd.Line) {
		return &workspace.CommandResult{ExitCode: 1, Stderr: []byte("sh: write error: No space left on device\n")}, nil
	}
	start := time.Now()
	x := exec.CommandContext(ctx, "sh", "-c", cmd.Line)
	x.Dir = c.dir
	x.Stdin = bytes.NewReader(cmd.Stdin)
	var stdout, stderr bytes.Buffer
	x.Stdout, x.Stderr = &stdout, &stderr
	err := x.Run()
	res := &workspace.CommandResult{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return nil, err
	}
	return res, nil
}

// Lines returns the commands run so far.
func (c *cmdSandbox) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lines)
}

// writeLines returns the commands that carried file data.
func (c *cmdSandbox) writeLines() []string {
	var out []string
	for _, l := range c.Lines() {
		if strings.Contains(l, "base64 -d") {
			out = append(out, l)
		}
	}
	return out
}

// treeFiles lists every regular file under dir, relative to it.
func treeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
