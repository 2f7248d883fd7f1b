package processor_test

import (
	"context"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// A file-upload processor that sends CSV files to the sandbox: the model
// gets the upload note in the CSV's place, and the image stays.
func ExampleNewFileUpload() {
	ws := workspace.New(keeltest.NewSandbox("example"))
	p, err := processor.NewFileUpload(processor.FileUploadOptions{
		Workspace: ws,
		Filter:    func(f processor.FileInfo) (bool, error) { return f.Extension == "csv", nil },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "How many rows?"},
		keel.FilePart{Data: []byte("a,b\n1,2\n"), MediaType: "text/csv", Filename: "rows.csv"},
		keel.FilePart{Data: []byte("\x89PNG"), MediaType: "image/png", Filename: "chart.png"},
	}}}
	run := processor.NewRun("run-1", nil)
	run.ThreadID, run.Workspace, run.Messages = "thread-1", ws, turn

	ctx := context.Background()
	if err := p.ProcessInput(ctx, &processor.Input{Run: run, Messages: turn}); err != nil {
		fmt.Println(err)
		return
	}
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(turn)}
	if err := p.RewriteLLMRequest(ctx, req); err != nil {
		fmt.Println(err)
		return
	}
	for _, part := range req.Prompt[0].Parts {
		switch part := part.(type) {
		case keel.TextPart:
			fmt.Println(part.Text)
		case keel.FilePart:
			fmt.Println("file:", part.Filename)
		}
	}
	// Output:
	// How many rows?
	// [File uploaded to the sandbox]
	// path: /home/user/uploads/thread-1/492d5ea496056f1a6a6592241032fab764c321596317930b4fa0e1e8bc3b7470.csv
	// name: rows.csv
	// type: text/csv
	// size: 8 bytes
	// file: chart.png
}
