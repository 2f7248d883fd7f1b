package main_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// errorOut is keel run --json's output when the run fails.
type errorOut struct {
	Error      string `json:"error"`
	Status     int    `json:"status"`
	ThreadID   string `json:"threadId"`
	ResourceID string `json:"resourceId"`
}

// TestRunFailureKeepsTheMessage: a failed run says which thread keeps the
// user's message (it is stored before the model is called), and with
// --json prints the error as JSON on standard output; a turn stopped
// before anything was stored names no thread.
func TestRunFailureKeepsTheMessage(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) {
		return providertest.Reply{Status: 400, Body: googletest.ErrorBody(400, "INVALID_ARGUMENT", googletest.BadRequestMessage)}, true
	}})
	dir := t.TempDir()
	for _, asJSON := range []bool{false, true} {
		args := []string{"run", "Hello there"}
		if asJSON {
			args = append(args, "--json")
		}
		res := keel(t, dir, geminiEnv(srv), args...)
		if res.code != 1 || !strings.Contains(res.stderr, "max_output_tokens must be positive") || !strings.Contains(res.stderr, "your message is kept in thread ") {
			t.Fatalf("Got(keel %q) = %d, %q; want 1, the provider's error, and the thread that keeps the message", args, res.code, res.stderr)
		}
		_, rest, _ := strings.Cut(res.stderr, "your message is kept in thread ")
		thread, _, _ := strings.Cut(rest, ":")
		show := decode[showOut](t, "threads show", mustKeel(t, dir, env(), "threads", "show", thread, "--json").stdout)
		if len(show.Messages) != 1 || show.Messages[0].Text != "Hello there" {
			t.Errorf("Got(thread %s) = %+v; want the user's message kept", thread, show.Messages)
		}
		if !asJSON {
			if res.stdout != "" {
				t.Errorf("Got(stdout) = %q; want nothing without --json", res.stdout)
			}
			continue
		}
		out := decode[errorOut](t, "error output", res.stdout)
		if out.Status != 400 || out.ThreadID != thread || out.ResourceID != "default" || !strings.Contains(out.Error, "max_output_tokens") {
			t.Errorf("Got(JSON error) = %+v; want the 400, thread %s of resource default", out, thread)
		}
	}

	// A file over keel.yaml's fileUpload limit stops the turn before
	// anything is stored: no thread is named.
	writeFile(t, filepath.Join(dir, "small.yaml"), []byte("agents:\n  - id: a\n    fileUpload: {maxSize: 10}\n"))
	writeFile(t, filepath.Join(dir, "data.csv"), []byte("region,leads\nBerlin,12\n"))
	res := keel(t, dir, geminiEnv(srv), "run", "--config", "small.yaml", "--json", "--file", "data.csv", "Count")
	out := decode[errorOut](t, "error output", res.stdout)
	if res.code != 1 || strings.Contains(res.stderr, "kept in thread") || out.ThreadID != "" || !strings.Contains(out.Error, "FILE_TOO_LARGE") {
		t.Errorf("Got(run with a file over the limit) = %d, %q, %+v; want 1 and no thread named", res.code, res.stderr, out)
	}
}

// TestRunInterrupted: SIGINT during the model's call exits 130, naming
// the thread that keeps the message.
func TestRunInterrupted(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) {
		return providertest.Reply{Body: googletest.TextBody("too late"), Delay: time.Minute}, true
	}})
	dir := t.TempDir()
	cmd := exec.Command(keelBin, "run", "--json", "--new-thread", "waiting", "Take your time")
	cmd.Dir, cmd.Env = dir, geminiEnv(srv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); len(srv.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("Got(model call) none after 30 s; want one\nstderr: %s", errb.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("Got(keel run after SIGINT) still running after 30 s; want it ended")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("Got(exit of keel run after SIGINT) = %v; want status 130", err)
	}
	if !strings.Contains(errb.String(), "keel run: interrupted") || !strings.Contains(errb.String(), "your message is kept in thread waiting") {
		t.Errorf("Got(stderr) = %q; want interrupted, and the thread that keeps the message", errb.String())
	}
	if got := decode[errorOut](t, "error output", out.String()); got.Error != "interrupted" || got.ThreadID != "waiting" {
		t.Errorf("Got(JSON error) = %+v; want interrupted in thread waiting", got)
	}
}

// TestRunStreamTellsRetries: with --stream, a retry's wait is told as it
// begins.
func TestRunStreamTellsRetries(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Text: "Back again.", Respond: func(_ googletest.Request, n int) (providertest.Reply, bool) {
		if n == 0 {
			return providertest.Reply{Status: 503, Body: googletest.ErrorBody(503, "UNAVAILABLE", googletest.UnavailableMessage)}, true
		}
		return providertest.Reply{}, false
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("agents:\n  - id: a\n    streamRetry: {maxRetries: 1, delay: 100ms}\n"))
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--stream", "Hi")
	if strings.TrimSpace(res.stdout) != "Back again." ||
		!strings.Contains(res.stderr, "keel run: retrying in 100 ms after 503 ("+googletest.UnavailableMessage+")") {
		t.Errorf("Got(stdout, stderr) = %q, %q; want the answer, and the retry's wait told", res.stdout, res.stderr)
	}
}
