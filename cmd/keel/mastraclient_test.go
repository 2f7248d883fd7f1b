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

// clientDir holds the Node tests of the official Mastra client.
const clientDir = "../../test/mastra-client"

// TestMastraClient runs test/mastra-client/*.test.mjs, which use the real
// @mastra/client-js 1.47.0 (installed from its lockfile) against a real
// keel serve whose model is a local Gemini-protocol server refusing xlsx
// files: client.test.mjs without auth (trusted callers), users.test.mjs
// with per-user tokens and a backend's shared token.
func TestMastraClient(t *testing.T) {
	node := clientSetup(t)
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})

	t.Run("no auth", func(t *testing.T) {
		served := t.TempDir()
		s := startServe(t, served, geminiEnv(srv), loopback...)
		runClientTest(t, node, s, "client.test.mjs", "KEEL_TOKEN=",
			"EXPECTED_TEXT="+googletest.DefaultText, "EXPECTED_MODEL="+googletest.ModelVersion)
		// The refused file went to the model once per request that
		// carried it, and each was answered again without it.
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
		// The client deleted its thread, and with it the refused file
		// keel had put in user-1's sandbox.
		uploads := filepath.Join(served, ".keel", "sandbox", "resource-"+localsandbox.DirName("user-1"), "uploads")
		if entries, err := os.ReadDir(uploads); err != nil || len(entries) != 0 {
			t.Errorf("Got(uploads of user-1 after the thread's deletion) = %v, %v; want the directory there and empty", entries, err)
		}
		if err := s.stop(t); err != nil {
			t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
		}
	})

	t.Run("per-user tokens", func(t *testing.T) {
		const secret, backend = "client-test-jwt-secret-of-32-bytes-or-more", "client-test-backend-token"
		s := startServe(t, t.TempDir(), geminiEnv(srv, "KEEL_JWT_SECRET="+secret, "KEEL_API_TOKEN="+backend), loopback...)
		if !strings.Contains(s.Stderr(), "auth: per-user tokens") {
			t.Errorf("Got(start-up message) = %q; want it to say per-user tokens are on", s.Stderr())
		}
		runClientTest(t, node, s, "users.test.mjs", "KEEL_ALICE_TOKEN="+hs256(t, secret, "alice"),
			"KEEL_BOB_TOKEN="+hs256(t, secret, "bob"), "KEEL_BACKEND_TOKEN="+backend, "EXPECTED_TEXT="+googletest.DefaultText)
		if err := s.stop(t); err != nil {
			t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
		}
	})
}

// TestMastraClientTools runs test/mastra-client/tools.test.mjs: the real
// client runs the agent's tools through keel serve (Tool.execute,
// Agent.executeTool and the MCP registry API), those of a real
// server-everything over stdio and the built-in sandbox tools, and reads
// a tool's image as a file.
func TestMastraClientTools(t *testing.T) {
	node := clientSetup(t)
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	mcpConfig(t, dir, "run_command", "list_files", "everything/echo", "everything/get-sum", "everything/get-tiny-image")
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	runClientTest(t, node, s, "tools.test.mjs")
	// The tools ran on their own: no model was called.
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("Got(model calls) = %d; want none: the client ran the tools itself", n)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// clientSetup returns node, with the client installed from the lockfile.
func clientSetup(t *testing.T) string {
	t.Helper()
	return npmInstalled(t, "the Mastra client test", clientDir, filepath.Join("node_modules", "@mastra", "client-js"))
}

// npmInstalled returns node, with dir's lockfile installed by npm ci
// (with flags) unless marker, a path under dir, shows it is already.
// Without node and npm the test is skipped, or fails under CI, whose test
// command installs them.
func npmInstalled(t *testing.T, what, dir, marker string, flags ...string) string {
	t.Helper()
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Got(node, npm) = %v, %v; want both installed: CI runs %s", nodeErr, npmErr, what)
		}
		t.Skipf("skipped: %s needs node and npm (Debian: apt-get install nodejs npm): %v %v", what, nodeErr, npmErr)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		args := append([]string{"ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"}, flags...)
		if out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput(); err != nil {
			t.Fatalf("Got(npm %s) = %v; want the lockfile installed\n%s", strings.Join(args, " "), err, out)
		}
	}
	return node
}

// runClientTest runs one Node test file against s and fails unless it ran
// tests and every one passed.
func runClientTest(t *testing.T, node string, s *served, file string, vars ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", file)
	cmd.Dir = clientDir
	cmd.Env = env(append([]string{"KEEL_URL=" + s.url, "KEEL_AGENT=assistant"}, vars...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Got(node --test %s) = %v; want every test to pass\n%s\nkeel serve:\n%s", file, err, out, s.Stderr())
	}
	t.Logf("node --test %s:\n%s", file, out)
	// A file that ran no test would pass too: make sure some did.
	if o := string(out); !strings.Contains(o, "fail 0") || strings.Contains(o, "pass 0") {
		t.Fatalf("Got(node --test %s output) = %s; want tests run, none failed", file, out)
	}
}
