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
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

const full = `server:
  addr: 0.0.0.0:8080
  tokenEnv: MY_TOKEN
  maxBodyBytes: 1048576
agents:
  - id: analyst
    name: Analyst
    description: Reads spreadsheets.
    instructions: You analyse data.
    model: google/gemini-2.5-flash
    tools: [run_command, read_file]
    sandbox:
      resolution: per-thread
      allowUnisolated: true
    errorProcessorDefaults: false
    streamRetry: {maxRetries: 4, delay: 250ms}
    maxSteps: 7
    maxProcessorRetries: 2
  - id: helper
`

func TestParseFull(t *testing.T) {
	f, err := config.Parse([]byte(full), "keel.yaml")
	if err != nil {
		t.Fatalf("Got(Parse) error %v; want nil", err)
	}
	a, ok := f.Agent("analyst")
	if !ok {
		t.Fatalf("Got(Agent(%q)) = false; want true", "analyst")
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"server.addr", f.Server.Addr, "0.0.0.0:8080"},
		{"server.tokenEnv", f.Server.TokenEnvName(), "MY_TOKEN"},
		{"server.maxBodyBytes", f.Server.MaxBodyBytes, int64(1 << 20)},
		{"name", a.Name, "Analyst"},
		{"model", a.Model.String(), "google/gemini-2.5-flash"},
		{"tools", strings.Join(a.Tools, ","), "run_command,read_file"},
		{"sandbox.resolution", a.Sandbox.Resolution, config.PerThread},
		{"sandbox.allowUnisolated", a.Sandbox.AllowUnisolated, true},
		{"errorProcessorDefaults", a.ErrorProcessorDefaults != nil && !*a.ErrorProcessorDefaults, true},
		{"streamRetry.delay", a.StreamRetry.Delay, 250 * time.Millisecond},
		{"streamRetry.maxRetries", a.StreamRetry.MaxRetries, 4},
		{"maxSteps", a.MaxSteps, 7},
		{"maxProcessorRetries", a.MaxProcessorRetries, 2},
		{"agents", len(f.Agents), 2},
		{"path", f.Path(), "keel.yaml"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Got(%q) = %v; want %v", c.name, c.got, c.want)
		}
	}
	if got := (config.Server{}).TokenEnvName(); got != "KEEL_API_TOKEN" {
		t.Errorf("Got(default TokenEnvName) = %q; want KEEL_API_TOKEN", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		line       int
		want       string
	}{
		{"unknown agent field", "agents:\n  - id: a\n    modle: x/y\n", 3, `unknown field "modle"`},
		{"unknown top-level field", "agents:\n  - id: a\nservre: {}\n", 3, `unknown field "servre"`},
		{"unknown sandbox field", "agents:\n  - id: a\n    sandbox:\n      mode: shared\n", 4, `unknown field "mode"`},
		{"wrong type", "agents:\n  - id: a\n    maxSteps: many\n", 3, `got text "many"; write a whole number here`},
		{"scalar document", "hello\n", 1, `got text "hello"; write a mapping of agents, server, files, refusals, mcp here`},
		{"agent as text", "agents:\n  - analyst\n", 2, `write a mapping of id, name`},
		{"bad duration", "agents:\n  - id: a\n    streamRetry:\n      delay: soon\n", 4, `write a duration such as 3s here`},
		// yaml.v3 names the line where the broken construct starts.
		{"syntax", "agents:\n  - id: a\n\tname: b\n", 2, "not valid YAML"},
		{"empty", "   \n", 0, "the file is empty"},
		{"no agents", "server:\n  addr: 127.0.0.1:1\n", 1, "list at least one agent"},
		{"missing id", "agents:\n  - name: x\n", 2, "id is required"},
		{"bad id", "agents:\n  - id: a/b\n", 2, `"a/b": use 1 to 128`},
		{"duplicate id", "agents:\n  - id: a\n  - id: a\n", 3, "ids must be unique"},
		{"unknown tool", "agents:\n  - id: a\n    tools:\n      - run_command\n      - browse\n", 5, `unknown tool "browse"`},
		{"tool twice", "agents:\n  - id: a\n    tools: [read_file, read_file]\n", 3, "read_file is listed twice"},
		{"bad resolution", "agents:\n  - id: a\n    sandbox: {resolution: per-user}\n", 3, `"per-user": use per-resource`},
		{"bad model", "agents:\n  - id: a\n    model: gpt-4o\n", 3, "write provider/model"},
		{"negative steps", "agents:\n  - id: a\n    maxSteps: -1\n", 3, "use a positive number"},
		{"negative delay", "agents:\n  - id: a\n    streamRetry: {delay: -1s}\n", 3, "cannot be negative"},
		{"bad addr", "server: {addr: localhost}\nagents:\n  - id: a\n", 1, "write host:port"},
		{"token in file", "server: {tokenEnv: 'secret token'}\nagents:\n  - id: a\n", 1, "not the token itself"},
		{"negative body", "server: {maxBodyBytes: -5}\nagents:\n  - id: a\n", 1, "positive number of bytes"},
		{"sandbox as other text", "agents:\n  - id: a\n    sandbox: off\n", 3, `got "off"; write none, or a mapping of engine, image`},
		{"tool without a sandbox", "agents:\n  - id: a\n    sandbox: none\n    tools:\n      - read_file\n", 5, "read_file works in the agent's sandbox, and this agent has sandbox: none"},
		{"fileUpload without a sandbox", "agents:\n  - id: a\n    sandbox: none\n    fileUpload: {}\n", 4, "fileUpload puts files into the agent's sandbox"},
		{"fileUpload as true", "agents:\n  - id: a\n    fileUpload: true\n", 3, "write a mapping of mediaTypes, extensions, maxSize"},
		{"unknown fileUpload field", "agents:\n  - id: a\n    fileUpload: {types: [text/csv]}\n", 3, `unknown field "types"; the fields here are: mediaTypes, extensions, maxSize`},
		{"bad media type", "agents:\n  - id: a\n    fileUpload:\n      mediaTypes:\n        - text/csv\n        - spreadsheets\n", 6, `fileUpload.mediaTypes[1]: "spreadsheets": write a media type`},
		{"bad extension", "agents:\n  - id: a\n    fileUpload:\n      extensions: [xlsx, 'tar.gz']\n", 4, `fileUpload.extensions[1]: "tar.gz": write an extension`},
		{"upload size over the limit", "agents:\n  - id: a\n    fileUpload:\n      maxSize: 11MiB\n", 4, "fileUpload.maxSize: 11534336 bytes: write a size up to 10MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := config.Parse([]byte(c.yaml), "conf.yaml")
			if err == nil {
				t.Fatalf("Got(Parse(%q)) = %+v, nil; want an error", c.yaml, f)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Got(errors.As(%v, *config.Error)) = false; want true", err)
			}
			if ce.Line != c.line || ce.File != "conf.yaml" {
				t.Errorf("Got(file:line of %q) = %s:%d; want conf.yaml:%d", err, ce.File, ce.Line, c.line)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "config: conf.yaml") {
				t.Errorf("Got(%q) = %q; want config: conf.yaml... holding %q", c.name, err, c.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := config.Load(filepath.Join(dir, "none.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Got(Load(missing)) = %v; want an error wrapping os.ErrNotExist", err)
	}
	path := filepath.Join(dir, "keel.yaml")
	if err := os.WriteFile(path, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil || f.Path() != path || len(f.Agents) != 2 {
		t.Fatalf("Got(Load(%q)) = %+v, %v; want 2 agents from that path", path, f, err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, config.MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(big); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("Got(Load(big)) = %v; want an error saying the file is too large", err)
	}
}

// build builds f with scripted models and records the model strings
// asked for.
func build(t *testing.T, f *config.File, opts config.BuildOptions) (*config.Built, []string) {
	t.Helper()
	var asked []string
	if opts.ResolveModel == nil {
		opts.ResolveModel = func(s string) (keel.Model, error) {
			asked = append(asked, s)
			return keeltest.NewModel(keeltest.Reply{Text: "ok from " + s}), nil
		}
	}
	if opts.SandboxRoot == "" {
		opts.SandboxRoot = filepath.Join(sandboxtest.ReachableTempDir(t), "sandbox")
	}
	b, err := f.Build(opts)
	if err != nil {
		t.Fatalf("Got(Build) error %v; want nil", err)
	}
	return b, asked
}

func TestBuild(t *testing.T) {
	f, err := config.Parse([]byte(full), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, asked := build(t, f, config.BuildOptions{DefaultModel: "openai/gpt-4o-mini", Memory: memory.NewInMemory()})
	if got := strings.Join(asked, ","); got != "google/gemini-2.5-flash,openai/gpt-4o-mini" {
		t.Errorf("Got(models resolved) = %q; want the agent's own, then the default", got)
	}
	if len(b.Agents) != 2 || b.Agents[0].ID() != "analyst" || b.Agents[1].ID() != "helper" {
		t.Fatalf("Got(agents) = %d; want analyst, helper in order", len(b.Agents))
	}
	cfg := b.Agents[0].Config()
	var tools []string
	for _, tl := range cfg.Tools {
		tools = append(tools, tl.Name)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"tools", strings.Join(tools, ","), "run_command,read_file"},
		{"defaults off", cfg.DisableDefaultErrorProcessors, true},
		{"error processors", len(cfg.ErrorProcessors), 1},
		{"max steps", cfg.MaxSteps, 7},
		{"processor retries", cfg.MaxProcessorRetries, 2},
		{"workspace", cfg.Workspace != nil, true},
		{"memory", cfg.Memory != nil, true},
		{"helper has defaults", b.Agents[1].Config().DisableDefaultErrorProcessors, false},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Got(%q) = %v; want %v", c.name, c.got, c.want)
		}
	}
	if id := cfg.ErrorProcessors[0].ID(); id != processor.StreamErrorRetryID {
		t.Errorf("Got(error processor) = %q; want %q", id, processor.StreamErrorRetryID)
	}
}

func TestBuildDefaultRuns(t *testing.T) {
	b, _ := build(t, config.Default(), config.BuildOptions{DefaultModel: "google/gemini-2.5-flash", Memory: memory.NewInMemory()})
	if len(b.Warnings) != 0 {
		t.Errorf("Got(warnings) = %q; want none with a model and bubblewrap", b.Warnings)
	}
	a := b.Agents[0]
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("hi")})
	if err != nil || res.Text != "ok from google/gemini-2.5-flash" {
		t.Fatalf("Got(Generate) = %v, %v; want the default model's answer", res, err)
	}
	if n := len(a.Config().Tools); n != 3 {
		t.Errorf("Got(default tools) = %d; want 3", n)
	}
}

func TestBuildWithoutModel(t *testing.T) {
	hint := errors.New("set KEEL_MODEL")
	b, _ := build(t, config.Default(), config.BuildOptions{NoModel: hint})
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "set KEEL_MODEL") {
		t.Errorf("Got(warnings) = %q; want one naming the variable", b.Warnings)
	}
	_, err := b.Agents[0].Generate(context.Background(), []keel.Message{keel.UserText("hi")})
	if !errors.Is(err, hint) {
		t.Errorf("Got(Generate error) = %v; want %v", err, hint)
	}
}

func TestBuildModelErrors(t *testing.T) {
	f := &config.File{Agents: []config.Agent{{ID: "a", Model: config.Model("anthropic/claude-sonnet-4-5")}}}
	missing := func(string) (keel.Model, error) {
		return nil, errors.Join(config.ErrModelUnavailable, errors.New("set ANTHROPIC_API_KEY"))
	}
	b, _ := build(t, f, config.BuildOptions{ResolveModel: missing})
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "ANTHROPIC_API_KEY") {
		t.Errorf("Got(warnings) = %q; want one naming ANTHROPIC_API_KEY", b.Warnings)
	}
	m := b.Agents[0].Config().Model
	if m.Provider() != "anthropic" || m.Name() != "claude-sonnet-4-5" {
		t.Errorf("Got(model) = %s/%s; want anthropic/claude-sonnet-4-5", m.Provider(), m.Name())
	}

	unknown := func(string) (keel.Model, error) { return nil, errors.New("unknown provider") }
	_, err := f.Build(config.BuildOptions{ResolveModel: unknown, SandboxRoot: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "unknown provider") {
		t.Errorf("Got(Build with a bad model) = %v; want the resolver's error", err)
	}
	if _, err := f.Build(config.BuildOptions{}); err == nil {
		t.Errorf("Got(Build without a resolver) = nil; want an error")
	}
	bad := &config.File{Agents: []config.Agent{{ID: "a b"}}}
	if _, err := bad.Build(config.BuildOptions{ResolveModel: unknown}); err == nil {
		t.Errorf("Got(Build of an invalid file) = nil; want the validation error")
	}
}
