package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// clientDir holds the Node test of the official Mastra client.
const clientDir = "../../test/mastra-client"

// TestMastraClient runs test/mastra-client/client.test.mjs, which uses the
// real @mastra/client-js 1.47.0 (installed from its lockfile) against a
// real keel serve whose model is a local Gemini-protocol server refusing
// xlsx files.
func TestMastraClient(t *testing.T) {
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Got(node, npm) = %v, %v; want both installed: CI runs the Mastra client test", nodeErr, npmErr)
		}
		t.Skipf("skipped: the Mastra client test needs node and npm (Debian: apt-get install nodejs npm): %v %v", nodeErr, npmErr)
	}
	dir, err := filepath.Abs(clientDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@mastra", "client-js")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, npm, "ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error")
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("Got(npm ci --prefix %s) = %v; want the lockfile installed\n%s", dir, err, out)
		}
	}

	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	const token = "client-test-token"
	served := t.TempDir()
	s := startServe(t, served, geminiEnv(srv, "KEEL_API_TOKEN="+token), loopback...)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "client.test.mjs")
	cmd.Dir = dir
	cmd.Env = env("KEEL_URL="+s.url, "KEEL_TOKEN="+token, "KEEL_AGENT=assistant", "EXPECTED_TEXT="+googletest.DefaultText)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Got(node --test client.test.mjs) = %v; want every test to pass\n%s\nkeel serve:\n%s", err, out, s.Stderr())
	}
	// A file that ran no test would pass too: make sure some did.
	if o := string(out); !strings.Contains(o, "fail 0") || strings.Contains(o, "pass 0") {
		t.Fatalf("Got(node --test output) = %s; want tests run, none failed", out)
	}

	// The refused file went to the model once per request that carried it,
	// and each was answered again without it.
	refused := 0
	for _, r := range srv.Requests() {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		for _, mt := range b.InlineMediaTypes() {
			if mt == xlsxType {
				refused++
			}
		}
	}
	if refused == 0 {
		t.Errorf("Got(requests with the xlsx) = 0; want the model server to have refused it")
	}
	// The client deleted its thread, and with it the refused file keel had
	// put in user-1's sandbox.
	uploads := filepath.Join(served, ".keel", "sandbox", "resource-"+localsandbox.DirName("user-1"), "uploads")
	if entries, err := os.ReadDir(uploads); err != nil || len(entries) != 0 {
		t.Errorf("Got(uploads of user-1 after the thread's deletion) = %v, %v; want the directory there and empty", entries, err)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}
