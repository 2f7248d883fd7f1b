package config_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

func TestParseDockerSandbox(t *testing.T) {
	f, err := config.Parse([]byte(`agents:
  - id: a
    tools: [run_command]
    sandbox:
      engine: docker
      image: keel/sandbox:debian
      runtime: runsc
      idleTimeout: 30m
      resolution: per-thread
      limits: {memory: 512MiB, cpus: 0.5}
`), "")
	if err != nil {
		t.Fatal(err)
	}
	sb := f.Agents[0].Sandbox
	if sb.Engine != "docker" || sb.Image != "keel/sandbox:debian" || sb.Runtime != "runsc" || sb.IdleTimeout != 30*time.Minute ||
		sb.Limits.CPUs != 0.5 || sb.Limits.Memory != 512<<20 {
		t.Errorf("Got(sandbox) = %+v; want the docker settings", sb)
	}
}

func TestParseDockerSandboxErrors(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		line       int
		want       string
	}{
		{"unknown engine", "agents:\n  - id: a\n    sandbox:\n      engine: podman\n", 4, `sandbox.engine: "podman": use local (the default) or docker`},
		{"image without docker", "agents:\n  - id: a\n    sandbox:\n      image: x\n", 4, "sandbox.image: is a docker sandbox's setting"},
		{"cpus without docker", "agents:\n  - id: a\n    sandbox:\n      limits: {cpus: 2}\n", 4, "sandbox.limits.cpus: is a docker sandbox's setting"},
		{"uid with docker", "agents:\n  - id: a\n    sandbox:\n      engine: docker\n      uid: 5\n", 5, "sandbox.uid: is a local sandbox's setting"},
		{"unisolated with docker", "agents:\n  - id: a\n    sandbox:\n      engine: docker\n      allowUnisolated: true\n", 5, "sandbox.allowUnisolated: is a local sandbox's setting"},
		{"own file system with docker", "agents:\n  - id: a\n    sandbox:\n      engine: docker\n      ownFilesystem: true\n", 5, "sandbox.ownFilesystem: is a local sandbox's setting"},
		{"negative idle", "agents:\n  - id: a\n    sandbox:\n      engine: docker\n      idleTimeout: -1m\n", 5, "sandbox.idleTimeout: -1m0s"},
		{"negative cpus", "agents:\n  - id: a\n    sandbox:\n      engine: docker\n      limits:\n        cpus: -1\n", 6, "sandbox.limits.cpus: -1"},
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

// TestBuildDockerSandbox: an agent with engine: docker gets sandboxes in
// containers, from its settings alone (two builds stand for two
// servers), and the line said at start names the engine, the image and
// the limits.
func TestBuildDockerSandbox(t *testing.T) {
	e := dockertest.Engine(t)
	prefix := dockertest.Prefix(t, e)
	f, err := config.Parse([]byte("agents:\n  - id: a\n    tools: [run_command]\n    sandbox:\n      engine: docker\n      image: "+
		dockertest.Image+"\n      limits: {processes: 50, memory: 256MiB}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	opts := config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(), nil },
		DefaultModel: "x/y",
		SandboxRoot:  filepath.Join(t.TempDir(), "never-made"),
		DockerPrefix: prefix,
	}
	var sbs []workspace.Sandbox
	for range 2 {
		b, err := f.Build(opts)
		if err != nil {
			t.Fatalf("Got(Build) error %v; want none", err)
		}
		if len(b.Info) != 1 || !strings.Contains(b.Info[0], "dockersandbox:") || !strings.Contains(b.Info[0], dockertest.Image) ||
			!strings.Contains(b.Info[0], "50 processes") || !strings.Contains(b.Info[0], "256 MiB memory") {
			t.Errorf("Got(info) = %q; want one line naming the engine, image and limits", b.Info)
		}
		sb, err := b.Agents[0].Config().Workspace.Sandbox(context.Background(), workspace.Scope{ResourceID: "u"})
		if err != nil {
			t.Fatal(err)
		}
		sbs = append(sbs, sb)
	}
	if sbs[0].ID() != sbs[1].ID() || !strings.HasPrefix(sbs[0].ID(), "docker:"+prefix+"-resource-u-") {
		t.Errorf("Got(sandbox IDs) %s and %s; want the same container from the same settings", sbs[0].ID(), sbs[1].ID())
	}
	res, err := sbs[1].(workspace.CommandRunner).RunCommand(context.Background(), workspace.Command{Line: "id -u"})
	if err != nil || string(res.Stdout) != "1000\n" {
		t.Errorf("Got(a command in the built sandbox) = %v, %v; want uid 1000", res, err)
	}
	if _, err := os.Stat(opts.SandboxRoot); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Got(Stat of the local sandbox root) error %v; want it never made for docker sandboxes", err)
	}
}

// TestBuildDockerUnreachable: an engine that does not answer stops keel
// at start, saying where it looked.
func TestBuildDockerUnreachable(t *testing.T) {
	sock := filepath.Join(sandboxtest.ReachableTempDir(t), "no.sock")
	t.Setenv(dockersandbox.EnvHost, "unix://"+sock)
	f, err := config.Parse([]byte("agents:\n  - id: a\n    tools: [run_command]\n    sandbox: {engine: docker}\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Build(config.BuildOptions{ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(), nil }, DefaultModel: "x/y"})
	if !errors.Is(err, dockersandbox.ErrEngineUnreachable) || !strings.Contains(err.Error(), "agent a") || !strings.Contains(err.Error(), sock) {
		t.Errorf("Got(Build without an engine) error %v; want one naming the agent and %s", err, sock)
	}
}
