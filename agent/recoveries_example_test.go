package agent_test

import (
	"context"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// What keel did with a refused file is stored with the turn, on the
// reply, and read back from the thread later.
func ExampleStoredRecoveries() {
	mem := memory.NewInMemory()
	model := keeltest.NewModel(
		keeltest.Reply{Err: &keel.APICallError{Provider: "google", StatusCode: 502, Message: "Internal error encountered."}},
		keeltest.Reply{Text: "I could not open it."},
	)
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: mem})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, err = a.Generate(ctx, []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Read these"},
		keel.FilePart{Data: []byte("PK..."), MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Filename: "leads.xlsx"},
	}}}, agent.WithThread("t-1"), agent.WithResource("user-1"))
	if err != nil {
		panic(err)
	}
	page, _ := mem.ListMessages(ctx, "user-1", "t-1", memory.ListMessagesOptions{})
	for _, m := range page.Messages {
		recs, _ := agent.StoredRecoveries(m)
		for _, r := range recs {
			fmt.Printf("%s message: %s %s, after %s's %d\n", m.Role, r.Files[0].Name, r.Action, r.Cause.Provider, r.Cause.Status)
		}
	}
	// Output:
	// assistant message: leads.xlsx placeholder, after google's 502
}
