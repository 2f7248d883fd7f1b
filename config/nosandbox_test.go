package config_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// TestWhoGetsASandbox: an agent gets a sandbox only when a tool or its
// fileUpload reaches it; sandbox settings nothing reaches are warned of,
// with their line; and no sandbox root is made for agents without one.
func TestWhoGetsASandbox(t *testing.T) {
	for _, tc := range []struct {
		name, agent string
		sandbox     bool
		upload      bool
		warning     string
	}{
		{"no tools", "tools: []", false, false, ""},
		{"tools left out", "name: A", false, false, ""},
		{"sandbox none", "sandbox: none", false, false, ""},
		{"settings nothing reaches", "tools: []\n    sandbox: {resolution: per-thread}", false, false,
			"config: keel.yaml:4: agents[0].sandbox: agent a has no tool and no fileUpload that reach its sandbox, so it gets none"},
		{"empty settings nothing reaches", "sandbox: {}", false, false, "keel.yaml:3: agents[0].sandbox"},
		{"fileUpload alone", "fileUpload: {}", true, true, ""},
		{"a tool", "tools: [read_file]", true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse([]byte("agents:\n  - id: a\n    "+tc.agent+"\n"), "keel.yaml")
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(sandboxtest.ReachableTempDir(t), "sandbox")
			b, _ := build(t, f, config.BuildOptions{DefaultModel: "x/y", SandboxRoot: root})
			cfg := b.Agents[0].Config()
			if got := cfg.Workspace != nil; got != tc.sandbox {
				t.Errorf("Got(has a workspace) = %v; want %v", got, tc.sandbox)
			}
			if _, err := os.Stat(root); (err == nil) != tc.sandbox {
				t.Errorf("Got(stat of the sandbox root) error %v; want it made only for an agent with a sandbox", err)
			}
			uploads := len(cfg.InputProcessors) == 1 && cfg.InputProcessors[0].ID() == processor.FileUploadID
			if uploads != tc.upload {
				t.Errorf("Got(file-upload processor) = %v; want %v", uploads, tc.upload)
			}
			got := strings.Join(b.Warnings, "\n")
			if tc.warning == "" && len(b.Warnings) != 0 || !strings.Contains(got, tc.warning) {
				t.Errorf("Got(warnings) = %q; want %q", b.Warnings, tc.warning)
			}
			if fw := strings.Join(f.Warnings(), "\n"); fw != got {
				t.Errorf("Got(File.Warnings) = %q; want what Build says, %q", fw, got)
			}
		})
	}
}

// TestNoSandboxGetsThePlaceholder: a file the model refuses becomes the
// placeholder for an agent without a sandbox, and the upload note for one
// with its tools.
func TestNoSandboxGetsThePlaceholder(t *testing.T) {
	for _, tc := range []struct {
		agent, want, never string
	}{
		{"tools: []", "[Attachment unavailable: leads.xlsx]", "[File uploaded"},
		{"tools: [read_file, list_files]", "[File uploaded to the sandbox]", "[Attachment unavailable"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			f, err := config.Parse([]byte("agents:\n  - id: a\n    "+tc.agent+"\n"), "keel.yaml")
			if err != nil {
				t.Fatal(err)
			}
			model := keeltest.NewModel(
				keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType, MediaType: xlsxType}},
				keeltest.Reply{Text: "done"})
			b, _ := build(t, f, config.BuildOptions{
				ResolveModel: func(string) (keel.Model, error) { return model, nil },
				DefaultModel: "x/y", Memory: memory.NewInMemory(), Logger: slog.New(slog.DiscardHandler),
			})
			msg := keel.UserText("How many leads?")
			msg.Parts = append(msg.Parts, keel.FilePart{Data: []byte("PK\x03\x04sheet"), MediaType: xlsxType, Filename: "leads.xlsx"})
			if _, err := b.Agents[0].Generate(context.Background(), []keel.Message{msg}, agent.WithThread("t1"), agent.WithResource("u")); err != nil {
				t.Fatal(err)
			}
			prompts := model.Prompts()
			if len(prompts) != 2 {
				t.Fatalf("Got(model calls) = %d; want 2", len(prompts))
			}
			text := promptText(prompts[1])
			if !strings.Contains(text, tc.want) || strings.Contains(text, tc.never) {
				t.Errorf("Got(second prompt) = %q; want %q and no %q", text, tc.want, tc.never)
			}
		})
	}
}

func promptText(msgs []keel.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text())
		b.WriteString("\n")
	}
	return b.String()
}

// TestFileUploadFromYAML: fileUpload chooses files by extension or media
// type, uploads them before the model sees them, leaves the others in the
// prompt, and stops a turn whose chosen file is over its maxSize.
func TestFileUploadFromYAML(t *testing.T) {
	f, err := config.Parse([]byte(`agents:
  - id: a
    tools: [read_file]
    fileUpload:
      extensions: [CSV]
      mediaTypes: [image/*]
      maxSize: 1KiB
`), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	model := keeltest.NewModel(keeltest.Reply{Text: "read them"})
	b, _ := build(t, f, config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return model, nil },
		DefaultModel: "x/y", Memory: memory.NewInMemory(),
	})
	a := b.Agents[0]
	msg := keel.UserText("Look")
	msg.Parts = append(msg.Parts,
		keel.FilePart{Data: []byte("a,b\n1,2\n"), MediaType: "text/plain", Filename: "data.csv"},
		keel.FilePart{Data: []byte("\x89PNG\r\n\x1a\n"), MediaType: "image/png", Filename: "chart.png"},
		keel.FilePart{Data: []byte("%PDF-1.4"), MediaType: "application/pdf", Filename: "report.pdf"})
	res, err := a.Generate(context.Background(), []keel.Message{msg}, agent.WithThread("t1"), agent.WithResource("u"))
	if err != nil {
		t.Fatal(err)
	}
	var inline []string
	for _, p := range model.Prompts()[0][len(model.Prompts()[0])-1].Parts {
		if fp, ok := p.(keel.FilePart); ok {
			inline = append(inline, fp.Filename)
		}
	}
	text := promptText(model.Prompts()[0])
	if strings.Join(inline, ",") != "report.pdf" || strings.Count(text, "[File uploaded to the sandbox]") != 2 ||
		!strings.Contains(text, "name: data.csv") || !strings.Contains(text, "name: chart.png") {
		t.Errorf("Got(prompt) files %q, text %q; want the csv and the png uploaded, the pdf sent", inline, text)
	}
	// The csv's text follows its note (files.convert is on by default);
	// the png, which no converter reads, has the note alone.
	if !strings.Contains(text, "[Text of data.csv") || !strings.Contains(text, "1,2") {
		t.Errorf("Got(prompt text) %q; want the csv's text after its note", text)
	}
	if len(res.Recoveries) != 2 || res.Recoveries[0].Processor != processor.FileUploadID ||
		res.Recoveries[0].Action != processor.OutcomeConverted || res.Recoveries[0].Files[0].Name != "data.csv" ||
		res.Recoveries[1].Action != processor.OutcomeUploaded || res.Recoveries[1].Files[0].Name != "chart.png" {
		t.Errorf("Got(recoveries) = %+v; want data.csv converted, chart.png uploaded", res.Recoveries)
	}

	big := keel.UserText("And this")
	big.Parts = append(big.Parts, keel.FilePart{Data: make([]byte, 2048), MediaType: "text/csv", Filename: "big.csv"})
	_, err = a.Generate(context.Background(), []keel.Message{big}, agent.WithThread("t2"), agent.WithResource("u"))
	var fe *processor.FileUploadError
	if !errors.As(err, &fe) || fe.Code != processor.CodeFileTooLarge || model.Calls() != 1 {
		t.Errorf("Got(Generate with a 2 KiB csv) error %v, %d model calls; want FILE_TOO_LARGE before any call", err, model.Calls())
	}
}

// TestUnknownProviderNamesItsLine: a model the resolver refuses outright
// is reported at its line in keel.yaml; the default model, which no line
// names, is reported as such.
func TestUnknownProviderNamesItsLine(t *testing.T) {
	f, err := config.Parse([]byte("agents:\n  - id: a\n    model: acme/rocket\n  - id: b\n"), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(s string) (keel.Model, error) {
		if strings.HasPrefix(s, "acme/") {
			return nil, errors.New(`unknown provider "acme"`)
		}
		return keeltest.NewModel(), nil
	}
	_, err = f.Build(config.BuildOptions{ResolveModel: refuse, DefaultModel: "x/y", SandboxRoot: t.TempDir()})
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Line != 3 || ce.Field != "agents[0].model" ||
		err.Error() != `config: keel.yaml:3: agents[0].model: "acme/rocket": unknown provider "acme"` {
		t.Errorf("Got(Build) error %v; want it at keel.yaml:3, the model's line", err)
	}
	_, err = f.Build(config.BuildOptions{ResolveModel: refuse, DefaultModel: "acme/jet", SandboxRoot: t.TempDir(), Agent: "b"})
	if err == nil || errors.As(err, &ce) || !strings.Contains(err.Error(), `agent b: default model "acme/jet": unknown provider "acme"`) {
		t.Errorf("Got(Build of b on a bad default model) error %v; want it named the default model", err)
	}
}

// TestBuildOneAgent: BuildOptions.Agent builds that agent alone.
func TestBuildOneAgent(t *testing.T) {
	f := &config.File{Agents: []config.Agent{{ID: "a"}, {ID: "b", Model: config.Model("p/m")}}}
	b, asked := build(t, f, config.BuildOptions{DefaultModel: "x/y", Agent: "b"})
	if len(b.Agents) != 1 || b.Agents[0].ID() != "b" || strings.Join(asked, ",") != "p/m" {
		t.Errorf("Got(agents, models resolved) = %d, %q; want b alone on p/m", len(b.Agents), asked)
	}
	_, err := f.Build(config.BuildOptions{ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(), nil }, Agent: "c"})
	if err == nil || !strings.Contains(err.Error(), `no agent "c"`) {
		t.Errorf("Got(Build of agent c) error %v; want no such agent", err)
	}
}
