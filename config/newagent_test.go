package config_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/tool"
)

// TestNewAgent checks that the one call builds what keel run builds: on a
// Gemini that answers a spreadsheet with its real 502, the model gets the
// sheet's text on the first turn (two calls), the refusal is remembered so
// that the second turn costs one call, and the agent has the sandbox
// tools and the default instructions.
func TestNewAgent(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType}})
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	a, err := config.NewAgent(config.AgentOptions{Model: model, Memory: memory.NewInMemory(),
		SandboxRoot: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := a.Config()
	var tools []string
	for _, tl := range cfg.Tools {
		tools = append(tools, tl.Name)
	}
	if cfg.ID != config.DefaultAgentID || cfg.Instructions != config.DefaultInstructions ||
		strings.Join(tools, ",") != "run_command,read_file,list_files" || cfg.Workspace == nil ||
		cfg.Files.Converters == nil || cfg.Files.Refusals == nil || cfg.Files.Images == nil {
		t.Errorf("Got(config) ID %q, instructions %q, tools %q, workspace %v, files %+v; want keel run's",
			cfg.ID, cfg.Instructions, tools, cfg.Workspace, cfg.Files)
	}
	book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
	msg := keel.UserText("How many leads?")
	msg.Parts = append(msg.Parts, keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"})
	ctx := context.Background()
	for i, turn := range []struct {
		msg   keel.Message
		calls int
	}{
		{msg, 2},
		{keel.UserText("Which city?"), 1},
	} {
		before := len(srv.Requests())
		if _, err := a.Generate(ctx, []keel.Message{turn.msg}, agent.WithThread("t1"), agent.WithResource("u")); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		reqs := srv.Requests()
		if got := len(reqs) - before; got != turn.calls {
			t.Errorf("Got(turn %d calls) = %d; want %d", i+1, got, turn.calls)
		}
		if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "Berlin") || !strings.Contains(last, "[File uploaded to the sandbox]") {
			t.Errorf("Got(turn %d last request) without the sheet's text and note: %.400s", i+1, last)
		}
	}
}

// TestNewAgentOptions checks the options NewAgent takes and refuses.
func TestNewAgentOptions(t *testing.T) {
	if _, err := config.NewAgent(config.AgentOptions{}); err == nil || !strings.Contains(err.Error(), "Model is required") {
		t.Errorf("Got(NewAgent without a model) error %v; want Model is required", err)
	}
	model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
	a, err := config.NewAgent(config.AgentOptions{Model: model, ID: "analyst", Instructions: "Be terse.", SandboxRoot: t.TempDir(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() != "analyst" || a.Config().Name != "analyst" || a.Config().Instructions != "Be terse." {
		t.Errorf("Got(agent) %q %q %q; want analyst, analyst, Be terse.", a.ID(), a.Config().Name, a.Config().Instructions)
	}
	if _, err := config.NewAgent(config.AgentOptions{Model: model, ID: "bad id/", SandboxRoot: t.TempDir()}); err == nil {
		t.Error("Got(NewAgent with a bad ID) no error; want one")
	}
}

// TestNewAgentTools checks that the agent's own tools come after the
// sandbox tools, that the model is offered them all and a call of one
// runs it, and that a tool named as a sandbox tool, or twice, is refused.
func TestNewAgentTools(t *testing.T) {
	var ran []string
	stamp := tool.Tool{Name: "stamp", Description: "Returns a fixed stamp.",
		Execute: func(_ context.Context, c tool.Call) (any, error) {
			ran = append(ran, string(c.Input))
			return "2025-01-02", nil
		}}
	model := keeltest.NewModel(
		keeltest.Reply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "stamp", Input: []byte(`{}`)}}},
		keeltest.Reply{Text: "It is 2025-01-02."})
	a, err := config.NewAgent(config.AgentOptions{Model: model, Tools: []tool.Tool{stamp}, SandboxRoot: t.TempDir(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range a.Config().Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "run_command,read_file,list_files,stamp" {
		t.Errorf("Got(tools) = %s; want the sandbox tools, then stamp", got)
	}
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("What is the stamp?")})
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, d := range model.Requests()[0].Tools {
		offered = append(offered, d.Name)
	}
	if res.Text != "It is 2025-01-02." || len(ran) != 1 || strings.Join(offered, ",") != "run_command,read_file,list_files,stamp" {
		t.Errorf("Got(answer %q, stamp ran %d times, offered %q); want the tool's answer, one run, all four offered", res.Text, len(ran), offered)
	}
	for _, tt := range []struct {
		name  string
		tools []tool.Tool
	}{
		{"a sandbox tool's name", []tool.Tool{{Name: "read_file", Execute: stamp.Execute}}},
		{"one name twice", []tool.Tool{stamp, stamp}},
	} {
		_, err := config.NewAgent(config.AgentOptions{Model: keeltest.NewModel(), Tools: tt.tools, SandboxRoot: t.TempDir(),
			Logger: slog.New(slog.DiscardHandler)})
		if err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("Got(NewAgent with %s) error %v; want the tool given twice", tt.name, err)
		}
	}
}

// TestDefaultInstructionsFromYAML checks that an agent of keel.yaml that
// sets no instructions gets ones fitting what it has, and one that sets
// them keeps its own.
func TestDefaultInstructionsFromYAML(t *testing.T) {
	f, err := config.Parse([]byte(`agents:
  - id: tools
    tools: [read_file]
  - id: upload
    fileUpload: {extensions: [csv]}
  - id: plain
    sandbox: none
  - id: own
    instructions: Answer in French.
    tools: [read_file]
`), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Build(config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(), nil },
		DefaultModel: "x/y", SandboxRoot: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tools": config.DefaultInstructions, "upload": config.DefaultUploadInstructions,
		"plain": config.DefaultPlainInstructions, "own": "Answer in French."}
	for _, a := range b.Agents {
		if got := a.Config().Instructions; got != want[a.ID()] {
			t.Errorf("Got(%s instructions) = %q; want %q", a.ID(), got, want[a.ID()])
		}
	}
}
