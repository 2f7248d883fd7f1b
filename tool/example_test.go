package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
)

// The read_file tool reads a file of the run's sandbox by the absolute path
// an upload note gives.
func ExampleReadFile() {
	sb := keeltest.NewSandbox("example")
	_ = sb.WriteFile(context.Background(), "uploads/thread-1/report.csv", []byte("name,score\nada,10\n"))

	out, err := tool.ReadFile().Execute(context.Background(), tool.Call{
		Input:   json.RawMessage(`{"path":"/home/user/uploads/thread-1/report.csv"}`),
		Sandbox: func(context.Context) (workspace.Sandbox, error) { return sb, nil },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
	// Output:
	// {"path":"/home/user/uploads/thread-1/report.csv","size":18,"content":"name,score\nada,10\n","truncated":false,"binary":false}
}

// The list_files tool lists a directory with each entry's kind and size.
func ExampleListFiles() {
	sb := keeltest.NewSandbox("example")
	_ = sb.WriteFile(context.Background(), "notes.txt", []byte("hello"))
	_ = sb.WriteFile(context.Background(), "uploads/thread-1/a.csv", []byte("a,b"))

	out, _ := tool.ListFiles().Execute(context.Background(), tool.Call{
		Input:   json.RawMessage(`{}`),
		Sandbox: func(context.Context) (workspace.Sandbox, error) { return sb, nil },
	})
	for _, e := range out.(tool.Listing).Entries {
		fmt.Println(e.Kind, e.Name, e.Size)
	}
	// Output:
	// file notes.txt 5
	// dir uploads 0
}

// Tools without a sandbox fail with an error the model sees as a failed
// tool result.
func ExampleRunCommand() {
	_, err := tool.RunCommand().Execute(context.Background(), tool.Call{
		Input: json.RawMessage(`{"command":"wc -c /home/user/uploads/thread-1/a.csv"}`),
	})
	fmt.Println(err)
	// Output:
	// tool: run_command: workspace: no sandbox
}

// A tool whose result carries a file: the agent puts the file in the tool
// message, right after the result, where stores keep it as a file.
func ExampleResult() {
	chart := tool.Tool{
		Name:        "chart",
		Description: "Draws the figures as a chart.",
		Execute: func(ctx context.Context, call tool.Call) (any, error) {
			png := []byte("\x89PNG\r\n\x1a\n...")
			return tool.Result{
				Output: map[string]string{"note": "the chart is attached"},
				Files:  []keel.FilePart{{Data: png, MediaType: "image/png", Filename: "chart.png"}},
			}, nil
		},
	}
	out, _ := chart.Execute(context.Background(), tool.Call{Input: json.RawMessage(`{}`)})
	r := out.(tool.Result)
	fmt.Println(r.Output, r.Files[0].Filename, r.Files[0].MediaType)
	// Output: map[note:the chart is attached] chart.png image/png
}
