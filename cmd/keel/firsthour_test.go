package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/provider/google/googletest"
)

// TestFirstHourRunSaysNoSandboxLimits: keel run prints how sandbox
// commands are limited only when something is wrong, not on every run.
func TestFirstHourRunSaysNoSandboxLimits(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Text: "Hi."})
	dir := t.TempDir()
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--db", filepath.Join(dir, "k.db"), "hello")
	for _, line := range strings.Split(res.stderr, "\n") {
		if strings.HasPrefix(line, "keel run: ") && !strings.Contains(line, "WARNING") && strings.Contains(line, "sandbox") {
			t.Errorf("Got(keel run stderr line) %q; want no sandbox line when all is well", line)
		}
	}
}

// TestFirstHourHelpIsNoError: -h of keel refusals and keel version prints
// their usage and exits 0.
func TestFirstHourHelpIsNoError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"refusals", "-h"}, "usage: keel refusals list"},
		{[]string{"refusals", "--help"}, "usage: keel refusals list"},
		{[]string{"version", "-h"}, "usage: keel version"},
		{[]string{"version", "--help"}, "usage: keel version"},
	} {
		res := keel(t, t.TempDir(), env(), tc.args...)
		if res.code != 0 || !strings.Contains(res.stdout, tc.want) {
			t.Errorf("Got(keel %s) = %d, %q, %q; want 0 and %q", strings.Join(tc.args, " "), res.code, res.stdout, res.stderr, tc.want)
		}
	}
}

// TestFirstHourVersionSaysRevision: keel version always speaks of the
// revision, saying when it is unknown (a build outside a clone).
func TestFirstHourVersionSaysRevision(t *testing.T) {
	res := mustKeel(t, t.TempDir(), env(), "version")
	if !strings.Contains(res.stdout, "(revision ") {
		t.Errorf("Got(keel version) = %q; want the revision, or that it is unknown", res.stdout)
	}
}

// TestFirstHourThreadsListNamesOtherResources: keel threads list without
// --resource says whose threads it shows, and where the others are.
func TestFirstHourThreadsListNamesOtherResources(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	st, err := sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	res := mustKeel(t, dir, env(), "threads", "list", "--db", db)
	if !strings.Contains(res.stderr, "threads of resource default") || !strings.Contains(res.stderr, "--resource ID") || res.stdout != "" {
		t.Errorf("Got(keel threads list) = %q, %q; want a hint on stderr naming the other resources", res.stdout, res.stderr)
	}
	res = mustKeel(t, dir, env(), "threads", "list", "--db", db, "--resource", "assistant")
	if strings.Contains(res.stderr, "threads of resource") {
		t.Errorf("Got(keel threads list --resource assistant) stderr %q; want no hint when the resource is named", res.stderr)
	}
}

// TestFirstHourSeveralKeysSayWhichModel: with several providers' keys and
// no KEEL_MODEL, keel says which default model it took and how to choose.
func TestFirstHourSeveralKeysSayWhichModel(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Text: "Hi."})
	dir := t.TempDir()
	res := keel(t, dir, env("OPENAI_API_KEY=k", "GOOGLE_GENERATIVE_AI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL()),
		"run", "--db", filepath.Join(dir, "k.db"), "hello")
	if !strings.Contains(res.stderr, "the default model is openai/") || !strings.Contains(res.stderr, "OPENAI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY") ||
		!strings.Contains(res.stderr, "KEEL_MODEL=provider/model") {
		t.Errorf("Got(keel run with two keys) stderr %q; want the model chosen and KEEL_MODEL to pick another", res.stderr)
	}
	one := keel(t, dir, env("GOOGLE_GENERATIVE_AI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL="+srv.URL()), "run", "--db", filepath.Join(dir, "k.db"), "hello")
	if strings.Contains(one.stderr, "the default model is") {
		t.Errorf("Got(keel run with one key) stderr %q; want no note: there was no choice", one.stderr)
	}
}

// TestFirstHourMissingKeysNameEveryWayOut: an agent whose list of models
// has no key for any names each key that would do.
func TestFirstHourMissingKeysNameEveryWayOut(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("agents:\n  - id: writer\n    model: [anthropic/claude-sonnet-4-5, openai/gpt-4o-mini]\n"))
	res := keel(t, dir, env(), "run", "--db", filepath.Join(dir, "k.db"), "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "ANTHROPIC_API_KEY") || !strings.Contains(res.stderr, "OPENAI_API_KEY") {
		t.Errorf("Got(keel run with no key for either model) = %d, %q; want both keys named", res.code, res.stderr)
	}
}

// TestFirstHourAgentsAsMap: agents written as a mapping get an error that
// shows the list to write, not Go's type names.
func TestFirstHourAgentsAsMap(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("agents:\n  analyst:\n    model: google/gemini-2.5-flash\n"))
	res := keel(t, dir, env(), "run", "hi")
	if res.code != 1 || !strings.Contains(res.stderr, "keel.yaml:2: got a mapping; write a list of agents here") ||
		!strings.Contains(res.stderr, "- id: analyst") || strings.Contains(res.stderr, "config.Agent") {
		t.Errorf("Got(keel run with agents as a map) = %d, %q; want the list to write, at line 2", res.code, res.stderr)
	}
}

// TestFirstHourServeAuthLine: without a token, keel serve says it listens
// on loopback and what serving other machines takes, without implying
// that the token changes the address.
func TestFirstHourServeAuthLine(t *testing.T) {
	s := startServe(t, t.TempDir(), env(), loopback...)
	w := s.Stderr()
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
	if !strings.Contains(w, "listening on loopback, so only this machine can connect") || !strings.Contains(w, "then --addr") ||
		strings.Contains(w, "to require a token and to listen beyond loopback") {
		t.Errorf("Got(keel serve auth line) = %q; want loopback said, and --addr for other machines", w)
	}
}
