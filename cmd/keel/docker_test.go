package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// dockerConfig is a keel.yaml whose agent keeps its sandboxes in Docker.
const dockerConfig = `agents:
  - id: assistant
    tools: [run_command, read_file, list_files]
    sandbox:
      engine: docker
      image: ` + dockertest.Image + `
      limits: {processes: 64, memory: 512MiB}
`

// TestServeDocker: keel serve says at start that sandboxes run in Docker,
// on which engine, with which image and limits.
func TestServeDocker(t *testing.T) {
	e := dockertest.Engine(t)
	prefix := dockertest.Prefix(t, e)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(dockerConfig))
	host := os.Getenv(dockersandbox.EnvHost)
	s := startServe(t, dir, env("KEEL_MODEL="+geminiModel, "GOOGLE_GENERATIVE_AI_API_KEY=test-key",
		dockersandbox.EnvHost+"="+host, "KEEL_SANDBOX_PREFIX="+prefix), loopback...)
	for _, w := range []string{"sandboxes in Docker containers", "dockersandbox: sandbox commands run in containers of Docker",
		dockertest.Image, "64 processes", "512 MiB memory", "stops after 15m0s without a command"} {
		if !strings.Contains(s.Stderr(), w) {
			t.Errorf("Got(start-up message) = %q; want it to say %q", s.Stderr(), w)
		}
	}
	if strings.Contains(s.Stderr(), "bubblewrap") {
		t.Errorf("Got(start-up message) = %q; want no word of bubblewrap for docker sandboxes", s.Stderr())
	}
	if _, err := os.Stat(filepath.Join(dir, ".keel", "sandbox")); !os.IsNotExist(err) {
		t.Errorf("Got(Stat of the local sandbox root) error %v; want none made", err)
	}
}

// TestServeDockerUnreachable: with no engine keel serve stops at start,
// saying where it looked and what to do.
func TestServeDockerUnreachable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(dockerConfig))
	sock := filepath.Join(sandboxtest.ReachableTempDir(t), "none.sock")
	res := keel(t, dir, env("KEEL_MODEL="+geminiModel, "GOOGLE_GENERATIVE_AI_API_KEY=test-key",
		dockersandbox.EnvHost+"=unix://"+sock), append([]string{"serve"}, loopback...)...)
	if res.code == 0 || !strings.Contains(res.stderr, sock) || !strings.Contains(res.stderr, "start dockerd") ||
		!strings.Contains(res.stderr, "agent assistant") {
		t.Errorf("Got(keel serve without an engine) = exit %d, %q; want a failure naming %s and what to do", res.code, res.stderr, sock)
	}
}
