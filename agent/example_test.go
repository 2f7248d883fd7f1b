package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/workspace"
)

// A model that refuses a spreadsheet: the agent takes the file out of the
// prompt, leaves a placeholder and calls the model once more.
func ExampleAgent_Generate() {
	model := keeltest.NewModel(
		keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type application/vnd.ms-excel"}},
		keeltest.Reply{Text: "I can't open spreadsheets, but I can help otherwise."},
	)
	a, err := agent.New(agent.Config{ID: "assistant", Model: model})
	if err != nil {
		panic(err)
	}
	res, err := a.Generate(context.Background(), []keel.Message{{
		Role: keel.RoleUser,
		Parts: []keel.Part{
			keel.TextPart{Text: "Read these"},
			keel.FilePart{Data: []byte("..."), MediaType: "application/vnd.ms-excel", Filename: "leads.xls"},
		},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	fmt.Println(model.Prompts()[1][0].Parts[1].(keel.TextPart).Text)
	// Output:
	// I can't open spreadsheets, but I can help otherwise.
	// [Attachment unavailable: leads.xls]
}

func ExampleAgent_Stream() {
	model := keeltest.NewModel(keeltest.Reply{Chunks: []string{"Hello", ", world"}})
	a, err := agent.New(agent.Config{ID: "assistant", Model: model})
	if err != nil {
		panic(err)
	}
	for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("Hi")}) {
		if err != nil {
			panic(err)
		}
		switch ev.Type {
		case agent.EventTextDelta:
			fmt.Printf("%q\n", ev.Text)
		case agent.EventFinish:
			fmt.Println(ev.FinishReason)
		}
	}
	// Output:
	// "Hello"
	// ", world"
	// stop
}

// Deleting a thread removes the files uploaded for it from the sandbox.
func ExampleDeleteThread() {
	ctx := context.Background()
	sb := keeltest.NewSandbox("sb")
	mem := memory.NewInMemory()
	model := keeltest.NewModel(
		keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type application/zip", MediaType: "application/zip"}},
		keeltest.Reply{Text: "It is in the sandbox."},
	)
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: mem, Workspace: workspace.New(sb)})
	if err != nil {
		panic(err)
	}
	zip := keel.FilePart{Data: []byte("PK\x03\x04"), MediaType: "application/zip", Filename: "photos.zip"}
	if _, err := a.Generate(ctx, []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Unpack this"}, zip}}},
		agent.WithThread("holiday"), agent.WithResource("ann")); err != nil {
		panic(err)
	}
	fmt.Println(len(sb.Files()), "file in the sandbox")
	if err := agent.DeleteThread(ctx, mem, []*agent.Agent{a}, "ann", "holiday"); err != nil {
		panic(err)
	}
	_, err = mem.GetThread(ctx, "ann", "holiday")
	fmt.Println(len(sb.Files()), "files in the sandbox;", errors.Is(err, memory.ErrNotFound))
	// Output:
	// 1 file in the sandbox
	// 0 files in the sandbox; true
}
