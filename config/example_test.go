package config_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/tool"
)

func ExampleParse() {
	f, err := config.Parse([]byte(`
agents:
  - id: analyst
    model: google/gemini-2.5-flash
    tools: [read_file, list_files]
    sandbox: {resolution: per-thread}
`), "keel.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	a := f.Agents[0]
	fmt.Println(a.ID, a.Model, a.Tools, a.Sandbox.Resolution)
	// Output: analyst google/gemini-2.5-flash [read_file list_files] per-thread
}

func ExampleParse_unknownField() {
	_, err := config.Parse([]byte("agents:\n  - id: analyst\n    modle: google/gemini-2.5-flash\n"), "keel.yaml")
	fmt.Println(err)
	// Output: config: keel.yaml:3: unknown field "modle"; the fields here are: id, name, description, instructions, model, fallbackOnCallerErrors, tools, sandbox, fileUpload, errorProcessorDefaults, streamRetry, maxSteps, maxProcessorRetries, files, lastMessages, generateTitle
}

func ExampleFile_Build() {
	root, _ := os.MkdirTemp("", "sandbox")
	defer os.RemoveAll(root)
	built, err := config.Default().Build(config.BuildOptions{
		ResolveModel: func(model string) (keel.Model, error) {
			return keeltest.NewModel(keeltest.Reply{Text: "Hello."}), nil
		},
		DefaultModel: "google/gemini-2.5-flash",
		SandboxRoot:  root,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := built.Agents[0].Generate(context.Background(), []keel.Message{keel.UserText("Hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(built.Agents[0].ID(), res.Text)
	// Output: assistant Hello.
}

func ExampleFile_Build_noModel() {
	root, _ := os.MkdirTemp("", "sandbox")
	defer os.RemoveAll(root)
	built, _ := config.Default().Build(config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return nil, nil },
		SandboxRoot:  root,
	})
	_, err := built.Agents[0].Generate(context.Background(), []keel.Message{keel.UserText("Hi")})
	fmt.Println(err)
	// Output: config: no model configured: set KEEL_MODEL=provider/model (such as google/gemini-2.5-flash), or one of OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, then start keel again
}

// Sandbox limits take sizes with binary or decimal units.
func ExampleParseByteSize() {
	for _, s := range []string{"1GiB", "512 MiB", "1.5GB", "4096", "lots"} {
		n, err := config.ParseByteSize(s)
		fmt.Println(int64(n), err)
	}
	// Output:
	// 1073741824 <nil>
	// 536870912 <nil>
	// 1500000000 <nil>
	// 4096 <nil>
	// 0 "lots" is not a size: write bytes such as 1GiB, 512MiB, 1.5GB or 1048576
}

// An agent with no tool has no sandbox; sandbox settings that nothing
// reaches are warned of, at their line.
func ExampleFile_Warnings() {
	f, err := config.Parse([]byte(`agents:
  - id: writer
    tools: []
    sandbox: {resolution: per-thread}
  - id: reader
    sandbox: none
`), "keel.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range f.Warnings() {
		fmt.Println(w)
	}
	// Output: config: keel.yaml:4: agents[0].sandbox: agent writer has no tool and no fileUpload that reach its sandbox, so it gets none and a file the model refuses becomes a placeholder; give it a tool such as read_file, or write sandbox: none
}

func ExampleNewAgent() {
	root, _ := os.MkdirTemp("", "sandbox")
	defer os.RemoveAll(root)
	a, err := config.NewAgent(config.AgentOptions{
		Model:       keeltest.NewModel(keeltest.Reply{Text: "Hello."}),
		SandboxRoot: root,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("Hi")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.ID(), len(a.Config().Tools), res.Text)
	// Output: assistant 3 Hello.
}

// An agent with a tool of its own besides the sandbox tools.
func ExampleNewAgent_tools() {
	root, _ := os.MkdirTemp("", "sandbox")
	defer os.RemoveAll(root)
	clock := tool.Tool{
		Name:        "current_time",
		Description: "Returns the current date and time in UTC, in RFC 3339 form.",
		Execute: func(context.Context, tool.Call) (any, error) {
			return time.Date(2025, 5, 1, 9, 30, 0, 0, time.UTC).Format(time.RFC3339), nil
		},
	}
	model := keeltest.NewModel(
		keeltest.Reply{ToolCalls: []keel.ToolCallPart{{ID: "1", Name: "current_time", Input: []byte(`{}`)}}},
		keeltest.Reply{Text: "It is 09:30 UTC."})
	a, err := config.NewAgent(config.AgentOptions{Model: model, Tools: []tool.Tool{clock}, SandboxRoot: root})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("What time is it?")})
	if err != nil {
		fmt.Println(err)
		return
	}
	var names []string
	for _, tl := range a.Config().Tools {
		names = append(names, tl.Name)
	}
	fmt.Println(strings.Join(names, " "))
	fmt.Println(res.Text)
	// Output:
	// run_command read_file list_files current_time
	// It is 09:30 UTC.
}
