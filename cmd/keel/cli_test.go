package main_test

import (
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

// TestVersion: keel version prints the module version and the Go that
// built it (the revision, which Go stamps only in a clone, not in a git
// worktree, is checked on a fresh clone by TestFreshClone).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		res := mustKeel(t, t.TempDir(), env(), arg)
		if !strings.HasPrefix(res.stdout, "keel ") || !strings.HasSuffix(res.stdout, " "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n") {
			t.Errorf("Got(keel %s) = %q; want keel, its version, and %s %s/%s", arg, res.stdout, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		}
	}
	if res := keel(t, t.TempDir(), env(), "version", "extra"); res.code != 2 {
		t.Errorf("Got(keel version extra) = %d; want 2", res.code)
	}
}

// TestThreadsHelp: keel threads -h lists the threads commands.
func TestThreadsHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		res := mustKeel(t, t.TempDir(), env(), "threads", arg)
		for _, w := range []string{"keel threads list", "keel threads show", "keel threads delete", "never makes one"} {
			if !strings.Contains(res.stdout, w) {
				t.Errorf("Got(keel threads %s) = %q; want it to mention %q", arg, res.stdout, w)
			}
		}
	}
}

// TestFlagDefaultsShownOnce: no flag's help says its default twice.
func TestFlagDefaultsShownOnce(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "-h"}, {"run", "-h"}, {"threads", "list", "-h"}, {"threads", "show", "-h"}, {"threads", "delete", "-h"},
	} {
		res := mustKeel(t, t.TempDir(), env(), args...)
		flags := 0
		for _, block := range strings.Split(res.stderr, "\n  -")[1:] {
			flags++
			if n := strings.Count(block, "(default"); n > 1 {
				t.Errorf("Got(keel %s: flag -%s) says its default %d times; want once", strings.Join(args, " "), block, n)
			}
		}
		if flags < 2 {
			t.Errorf("Got(keel %s) = %q; want its flags listed", strings.Join(args, " "), res.stderr)
		}
	}
}

// TestHelpListsEnvironment: keel --help names every variable keel and its
// providers read.
func TestHelpListsEnvironment(t *testing.T) {
	res := mustKeel(t, t.TempDir(), env(), "--help")
	for _, v := range []string{
		provider.EnvModel, "KEEL_DATABASE_URL", "KEEL_API_TOKEN",
		openai.EnvAPIKey, openai.EnvBaseURL, openai.EnvCompatibleAPIKey, openai.EnvCompatibleBaseURL, "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
		anthropic.EnvAPIKey, anthropic.EnvBaseURL,
		google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey, google.EnvBaseURL,
	} {
		if !strings.Contains(res.stdout, v) {
			t.Errorf("Got(keel --help) = %q; want it to name %s", res.stdout, v)
		}
	}
}

// TestNoModelMessageFitsTheCommand: without a key, keel run says how to
// name a model on its command line, keel serve that it must be started
// again.
func TestNoModelMessageFitsTheCommand(t *testing.T) {
	res := keel(t, t.TempDir(), env(), "run", "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "no model configured: set KEEL_MODEL=provider/model") ||
		!strings.Contains(res.stderr, "--model provider/model") || strings.Contains(res.stderr, "start keel") {
		t.Errorf("Got(keel run without a key) = %d, %q; want the variables to set and --model", res.code, res.stderr)
	}
	s := startServe(t, t.TempDir(), env(), loopback...)
	if w := s.Stderr(); !strings.Contains(w, "WARNING: agent assistant has no model") || !strings.Contains(w, "then start keel serve again") ||
		strings.Contains(w, "--model") {
		t.Errorf("Got(keel serve without a key) = %q; want a warning saying to set a variable and start keel serve again", w)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// TestUnknownProviderNamesItsLine: a model of an unknown provider in
// keel.yaml is reported at its line; on the command line, as the flag.
func TestUnknownProviderNamesItsLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("agents:\n  - id: writer\n    model: acme/rocket\n"))
	for _, args := range [][]string{{"run", "hi"}, {"serve", "--addr", "127.0.0.1:0"}} {
		res := keel(t, dir, env(), args...)
		if res.code != 1 || !strings.Contains(res.stderr, `config: keel.yaml:3: agents[0].model: "acme/rocket": unknown provider "acme"`) {
			t.Errorf("Got(keel %s) = %d, %q; want 1, at keel.yaml:3", args[0], res.code, res.stderr)
		}
	}
	if res := keel(t, dir, env(), "run", "--model", "acme/jet", "hi"); res.code != 2 || !strings.Contains(res.stderr, `--model "acme/jet": unknown provider "acme"`) {
		t.Errorf("Got(keel run --model acme/jet) = %d, %q; want 2, naming the flag", res.code, res.stderr)
	}
}

// TestServeSecondInterrupt: a second SIGINT while keel serve waits for a
// running request exits at once, with status 130.
func TestServeSecondInterrupt(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		return providertest.Reply{Body: googletest.StreamTextBody("late"), ContentType: "text/event-stream", Delay: time.Minute}, r.Stream
	}})
	s := startServe(t, t.TempDir(), geminiEnv(srv), loopback...)
	go func() {
		// Read to the end: a client that goes away cancels its run.
		resp, err := http.Post(s.url+"/api/agents/assistant/stream", "application/json", strings.NewReader(`{"messages":"Take your time"}`))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); !hasStreamCall(srv); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Got(stream call at the model) = none after 30 s; want one\nstderr: %s", s.Stderr())
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(s.Stderr(), "keel serve: stopping"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Got(stderr after SIGINT) = %q; want it to say it is stopping", s.Stderr())
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("Got(keel serve after a second SIGINT) still running; want it gone at once\nstderr: %s", s.Stderr())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(s.Stderr(), "keel: interrupt again: exiting now") {
		t.Errorf("Got(exit) = %v, stderr %q; want status 130 and a word saying so", err, s.Stderr())
	}
}
