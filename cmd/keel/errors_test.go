package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

func TestErrorExits(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bad.yaml"), []byte("agents:\n  - id: a\n    tols: [read_file]\n"))
	writeFile(t, filepath.Join(dir, "two.yaml"), []byte("agents:\n  - id: first\n  - id: second\n"))
	writeFile(t, filepath.Join(dir, "claude.yaml"), []byte("agents:\n  - id: writer\n    model: anthropic/claude-sonnet-4-5\n"))
	// Without the default processors, a connection failure is not retried
	// (which takes seconds) before it surfaces.
	writeFile(t, filepath.Join(dir, "noretry.yaml"), []byte("agents:\n  - id: a\n    errorProcessorDefaults: false\n"))
	writeFile(t, filepath.Join(dir, "jwt.yaml"), []byte("server:\n  addr: 127.0.0.1:0\n  auth: {jwt: {issuer: https://auth.example.com}}\nagents:\n  - id: a\n"))
	gem := geminiEnv(srv)
	cases := []struct {
		name    string
		environ []string
		args    []string
		code    int
		want    []string
	}{
		{"no command", gem, nil, 2, []string{"Usage:"}},
		{"unknown command", gem, []string{"deploy"}, 2, []string{`unknown command "deploy"`, "serve, run, mcp, threads, refusals or version"}},
		{"unknown flag", gem, []string{"run", "--temperature", "2", "hi"}, 2, []string{"flag provided but not defined: -temperature"}},
		{"no prompt", gem, []string{"run"}, 2, []string{"give a prompt"}},
		{"missing file", gem, []string{"run", "--file", "nope.xlsx", "hi"}, 2, []string{"--file nope.xlsx", "check the path"}},
		{"directory as file", gem, []string{"run", "--file", ".", "hi"}, 2, []string{"is a directory"}},
		{"bad model string", gem, []string{"run", "--model", "gpt-4o", "hi"}, 2, []string{"write provider/model"}},
		{"unknown agent", gem, []string{"run", "--config", "two.yaml", "--agent", "third", "hi"}, 2, []string{`no such agent; the agents are: first, second`}},
		{"bad thread id", gem, []string{"run", "--thread", "a/b", "hi"}, 2, []string{`--thread "a/b"`}},
		{"bad config", gem, []string{"run", "--config", "bad.yaml", "hi"}, 1, []string{"bad.yaml:3", `unknown field "tols"`}},
		{"missing named config", gem, []string{"serve", "--config", "none.yaml"}, 1, []string{"none.yaml", "give an existing file to --config"}},
		{"no model", env(), []string{"run", "hi"}, 1, []string{"no model configured", "KEEL_MODEL", "GOOGLE_GENERATIVE_AI_API_KEY"}},
		{"unknown provider", env("KEEL_MODEL=acme/rocket"), []string{"run", "hi"}, 1, []string{`unknown provider "acme"`}},
		{"unknown provider stops serve", env("KEEL_MODEL=acme/rocket"), []string{"serve", "--addr", "127.0.0.1:0"}, 1, []string{`unknown provider "acme"`}},
		{"no key for the configured model", gem, []string{"run", "--config", "claude.yaml", "hi"}, 1, []string{"ANTHROPIC_API_KEY"}},
		{"PostgreSQL unreachable", gem, []string{"threads", "list", "--db", "postgres://keel@127.0.0.1:1/keel?connect_timeout=5"}, 1, []string{"open PostgreSQL", "check the URL"}},
		{"threads without subcommand", gem, []string{"threads"}, 2, []string{"keel threads list"}},
		{"unknown thread", gem, []string{"threads", "show", "nothing-here"}, 1, []string{"has no thread nothing-here", "keel threads list"}},
		{"open beyond loopback without token", gem, []string{"serve", "--addr", "0.0.0.0:0"}, 2, []string{"refusing to listen on 0.0.0.0:0 without auth", "KEEL_API_TOKEN", "KEEL_JWT_SECRET", "--insecure-bind"}},
		{"bad addr", gem, []string{"serve", "--addr", "4111"}, 2, []string{"write host:port"}},
		{"short JWT secret", geminiEnv(srv, "KEEL_JWT_SECRET=short"), []string{"serve", "--addr", "127.0.0.1:0"}, 1, []string{"per-user tokens", "at least 32"}},
		{"JWKS unreachable", geminiEnv(srv, "KEEL_JWKS_URL=http://127.0.0.1:1/jwks.json"), []string{"serve", "--addr", "127.0.0.1:0"}, 1, []string{"per-user tokens", "fetch the JWKS", "KEEL_JWKS_URL"}},
		{"JWT asked for without a key", gem, []string{"serve", "--config", "jwt.yaml"}, 1, []string{"server.auth.jwt is set", "KEEL_JWT_SECRET"}},
		{"model server unreachable", geminiEnv(srv, "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:1"), []string{"run", "--config", "noretry.yaml", "hi"}, 1, []string{"API call failed", "check the network"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := keel(t, dir, c.environ, c.args...)
			if res.code != c.code {
				t.Errorf("Got(exit code of keel %q) = %d; want %d\nstderr: %s", c.args, res.code, c.code, res.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("Got(stderr of keel %q) = %q; want it to say %q", c.args, res.stderr, w)
				}
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}} {
		res := mustKeel(t, t.TempDir(), env(), args...)
		for _, w := range []string{"keel serve", "keel run", "keel threads list", "keel threads show", "KEEL_API_TOKEN"} {
			if !strings.Contains(res.stdout, w) {
				t.Errorf("Got(keel %q) = %q; want it to mention %q", args, res.stdout, w)
			}
		}
	}
	res := mustKeel(t, t.TempDir(), env(), "run", "-h")
	for _, w := range []string{"-agent", "-model", "-file", "-thread", "-resource", "-db", "-sandbox", "-json", "-stream"} {
		if !strings.Contains(res.stderr, w) {
			t.Errorf("Got(keel run -h) = %q; want the flag %s", res.stderr, w)
		}
	}
}
