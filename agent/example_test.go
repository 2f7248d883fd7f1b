package agent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/xuri/excelize/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
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

// An agent given converters: the model refused a workbook, and gets its
// cells as CSV in its place.
func ExampleConfig_converters() {
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", "Leads")
	f.SetSheetRow("Leads", "A1", &[]any{"Name", "City"})
	f.SetSheetRow("Leads", "A2", &[]any{"Ada", "Berlin"})
	var book bytes.Buffer
	f.WriteTo(&book)

	const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	model := keeltest.NewModel(
		keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType, MediaType: xlsxType}},
		keeltest.Reply{Text: "One lead, from Berlin."},
	)
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Files: processor.UnsupportedFileOptions{Converters: convert.Default()}})
	if err != nil {
		panic(err)
	}
	res, err := a.Generate(context.Background(), []keel.Message{{
		Role: keel.RoleUser,
		Parts: []keel.Part{
			keel.TextPart{Text: "Where are my leads from?"},
			keel.FilePart{Data: book.Bytes(), MediaType: xlsxType, Filename: "leads.xlsx"},
		},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(model.Prompts()[1][0].Parts[1].(keel.TextPart).Text)
	fmt.Println(res.Recoveries[0].Action, res.Recoveries[0].Files[0].Conversion.Description)
	fmt.Println(res.Text)
	// Output:
	// [Text of leads.xlsx — sheet "Leads", 2 rows × 2 columns, as CSV]
	// # Sheet "Leads": 2 rows × 2 columns, cells A1:B2
	// Name,City
	// Ada,Berlin
	// converted sheet "Leads", 2 rows × 2 columns
	// One lead, from Berlin.
}
