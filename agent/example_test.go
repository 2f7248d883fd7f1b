package agent_test

import (
	"context"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
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
