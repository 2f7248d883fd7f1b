package config_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// TestBuildWithoutBubblewrap: without bubblewrap keel still starts; its
// sandboxes keep their files, their commands are off, and the warning
// saying so (and how to install bubblewrap) comes once for all agents.
// Allowed unisolated, the warning says that instead.
func TestBuildWithoutBubblewrap(t *testing.T) {
	opts := config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(), nil },
		DefaultModel: "x/y",
		SandboxRoot:  sandboxtest.ReachableTempDir(t),
		// A bwrap that is not there stands for a machine without it.
		BwrapPath: filepath.Join(t.TempDir(), "no-bwrap"),
	}
	tools := []string{config.ToolRunCommand}
	f := &config.File{Agents: []config.Agent{{ID: "a", Tools: tools}, {ID: "b", Tools: tools}}}
	b, err := f.Build(opts)
	if err != nil {
		t.Fatalf("Got(Build without bwrap) error %v; want keel to start", err)
	}
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "sandbox commands are off") ||
		!strings.Contains(b.Warnings[0], "apt-get install bubblewrap") || strings.Contains(b.Warnings[0], "\n") {
		t.Errorf("Got(warnings) = %q; want one line saying commands are off and how to install bubblewrap", b.Warnings)
	}
	if len(b.Info) != 0 {
		t.Errorf("Got(info) = %q; want none beside the warning", b.Info)
	}
	ws := b.Agents[0].Config().Workspace
	sb, err := ws.Sandbox(context.Background(), workspace.Scope{ResourceID: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.Upload(context.Background(), sb, "t1", "alice", workspace.File{Name: "a.csv", Data: []byte("a")}); err != nil {
		t.Errorf("Got(upload without bwrap) error %v; want files to work", err)
	}
	_, err = sb.(workspace.CommandRunner).RunCommand(context.Background(), workspace.Command{Line: "true"})
	if err == nil || !strings.Contains(err.Error(), "sandbox commands are off") {
		t.Errorf("Got(RunCommand without bwrap) error %v; want commands off", err)
	}

	f.Agents[1].Sandbox.AllowUnisolated = true
	b, err = f.Build(opts)
	if err != nil || len(b.Warnings) != 2 || !strings.HasPrefix(b.Warnings[0], "agent a: ") || !strings.HasPrefix(b.Warnings[1], "agent b: ") ||
		!strings.Contains(b.Warnings[1], "UNISOLATED") {
		t.Fatalf("Got(Build, one agent allowed unisolated) = %q, %v; want a warning per agent, b's saying UNISOLATED", b.Warnings, err)
	}
	opts.AllowUnisolated = true
	if b, err := f.Build(opts); err != nil || len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "UNISOLATED") {
		t.Errorf("Got(Build with --sandbox-unisolated) = %v, %v; want one loud warning", b, err)
	}
}

// TestBuildSandboxInfo: with bubblewrap, one line says how commands are
// isolated and limited, and the agent's limits reach its sandboxes.
func TestBuildSandboxInfo(t *testing.T) {
	f, err := config.Parse([]byte("agents:\n  - id: a\n    tools: [run_command]\n    sandbox:\n      limits: {processes: 100, memory: 512MiB, fileSize: 10MB, disk: 1.5GiB, cpuTime: 2m}\n  - id: b\n    tools: [read_file]\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := build(t, f, config.BuildOptions{DefaultModel: "x/y"})
	st := localsandbox.Check(sandboxtest.ReachableTempDir(t), localsandbox.Options{})
	if !st.Isolated {
		if os.Getenv("CI") != "" {
			t.Fatalf("Got(bubblewrap) unusable in CI: %v", st.Off)
		}
		t.Skipf("bubblewrap cannot run here (%v)", st.Off)
	}
	if len(b.Info) != 2 || !strings.HasPrefix(b.Info[0], "agent a: ") ||
		!strings.Contains(b.Info[0], "100 processes") || !strings.Contains(b.Info[0], "512 MiB memory") ||
		!strings.Contains(b.Info[0], "9.5 MiB per file") || !strings.Contains(b.Info[0], "1.5 GiB disk") || !strings.Contains(b.Info[0], "2m0s CPU") ||
		!strings.Contains(b.Info[1], "256 processes") {
		t.Errorf("Got(info) = %q; want a line per agent with its limits", b.Info)
	}
	sb, err := b.Agents[0].Config().Workspace.Sandbox(context.Background(), workspace.Scope{ResourceID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.(*localsandbox.Sandbox).Status().Limits; got.Processes != 100 || got.Memory != 512<<20 || got.Disk != 3<<29 {
		t.Errorf("Got(the sandbox's limits) = %+v; want the agent's", got)
	}
}

// TestBuildOwnFilesystem: ownFilesystem and limits.files reach the
// agent's sandboxes: the line said at start holds the file limit, and
// the disk is a file system of the sandbox's own where keel may mount
// (as root), measured otherwise and without the switch.
func TestBuildOwnFilesystem(t *testing.T) {
	st := localsandbox.Check(sandboxtest.ReachableTempDir(t), localsandbox.Options{})
	if !st.Isolated {
		if os.Getenv("CI") != "" {
			t.Fatalf("Got(bubblewrap) unusable in CI: %v", st.Off)
		}
		t.Skipf("bubblewrap cannot run here (%v)", st.Off)
	}
	own := localsandbox.Check(sandboxtest.ReachableTempDir(t), localsandbox.Options{OwnFilesystem: true}).Enforcement.Disk
	for _, tc := range []struct {
		name, yaml string
		want       localsandbox.Mechanism
	}{
		{"switch on", "ownFilesystem: true\n      limits: {files: 5000}", own},
		{"switch off", "limits: {files: 5000}", localsandbox.QuotaCheck},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse([]byte("agents:\n  - id: a\n    tools: [run_command]\n    sandbox:\n      "+tc.yaml+"\n"), "")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := build(t, f, config.BuildOptions{DefaultModel: "x/y"})
			if len(b.Info) != 1 || !strings.Contains(b.Info[0], "5000 files") || !strings.Contains(b.Info[0], string(tc.want)) {
				t.Errorf("Got(info) = %q; want the disk %q and 5000 files", b.Info, tc.want)
			}
		})
	}
	if os.Geteuid() == 0 && own != localsandbox.OwnFilesystem {
		t.Errorf("Got(disk as root with ownFilesystem) = %q; want %q", own, localsandbox.OwnFilesystem)
	}
}

func TestParseSandboxLimits(t *testing.T) {
	f, err := config.Parse([]byte(`agents:
  - id: a
    sandbox:
      uid: 3000000000
      gid: 3000000001
      limits:
        processes: 64
        memory: 1073741824
        fileSize: 2 GB
        disk: 4TiB
        files: 5000
        cpuTime: 90s
      ownFilesystem: true
`), "")
	if err != nil {
		t.Fatal(err)
	}
	sb := f.Agents[0].Sandbox
	want := config.SandboxLimits{Processes: 64, Memory: 1 << 30, FileSize: 2e9, Disk: 4 << 40, Files: 5000, CPUTime: 90 * time.Second}
	if sb.Limits != want || sb.UID != 3000000000 || sb.GID != 3000000001 || !sb.OwnFilesystem {
		t.Errorf("Got(sandbox) = %+v; want limits %+v, ids 3000000000:3000000001 and its own file system", sb, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"1GiB", "1073741824"}, {"1.5 KiB", "1536"}, {"10kB", "10000"}, {"7", "7"}, {"3 b", "3"},
	} {
		got, err := config.ParseByteSize(tc.in)
		if err != nil || fmt.Sprint(int64(got)) != tc.want {
			t.Errorf("Got(ParseByteSize(%q)) = %d, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestParseSandboxErrors(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		line       int
		want       string
	}{
		{"bad size", "agents:\n  - id: a\n    sandbox:\n      limits:\n        memory: lots\n", 5, `"lots" is not a size`},
		{"negative size", "agents:\n  - id: a\n    sandbox:\n      limits: {disk: -1GiB}\n", 4, `"-1GiB" is not a size`},
		{"unknown unit", "agents:\n  - id: a\n    sandbox:\n      limits: {fileSize: 3 parsecs}\n", 4, "is not a size"},
		{"size as list", "agents:\n  - id: a\n    sandbox:\n      limits:\n        memory: [1]\n", 5, "write a size"},
		{"negative processes", "agents:\n  - id: a\n    sandbox:\n      limits:\n        processes: -3\n", 5, "limits.processes: -3: use a positive number"},
		{"negative cpu", "agents:\n  - id: a\n    sandbox:\n      limits:\n        cpuTime: -1s\n", 5, "limits.cpuTime: -1s"},
		{"bad cpu", "agents:\n  - id: a\n    sandbox:\n      limits:\n        cpuTime: forever\n", 5, "write a duration"},
		{"bad uid", "agents:\n  - id: a\n    sandbox:\n      uid: -1\n", 4, "sandbox.uid: -1: use an unprivileged id"},
		{"unknown limit", "agents:\n  - id: a\n    sandbox:\n      limits:\n        threads: 3\n", 5, "processes, memory, fileSize, disk, files, cpuTime"},
		{"negative files", "agents:\n  - id: a\n    sandbox:\n      limits: {files: -5}\n", 4, "limits.files: -5: use a positive number"},
		{"own file system not a bool", "agents:\n  - id: a\n    sandbox:\n      ownFilesystem: sometimes\n", 4, "write true or false"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := config.Parse([]byte(c.yaml), "conf.yaml")
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Line != c.line || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Got(Parse) error %v (line %d); want line %d saying %q", err, lineOf(ce), c.line, c.want)
			}
		})
	}
}

func lineOf(e *config.Error) int {
	if e == nil {
		return 0
	}
	return e.Line
}
