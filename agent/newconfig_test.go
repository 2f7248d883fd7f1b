package agent_test

import (
	"context"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// TestNewNamesAnUnnamedAgentByItsID checks that Name defaults to the ID,
// and only when it is empty.
func TestNewNamesAnUnnamedAgentByItsID(t *testing.T) {
	for _, tc := range []struct{ name, want string }{{"", "a1"}, {"Alpha", "Alpha"}} {
		a, err := agent.New(agent.Config{ID: "a1", Name: tc.name, Model: keeltest.NewModel()})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Config().Name; got != tc.want {
			t.Errorf("Got(Config().Name with Name %q) = %q; want %q", tc.name, got, tc.want)
		}
	}
}

// TestRefusalsRememberedWithoutConverters checks that a refusal ledger
// is used on its own, with no converters configured: a new thread with
// the refused file costs one call, not a refusal and a retry.
func TestRefusalsRememberedWithoutConverters(t *testing.T) {
	model, srv := refusingGemini(t)
	a := rememberingAgent(t, model, memory.NewInMemory(), nil, true)
	book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
	file := keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"}
	for i, tc := range []struct {
		thread string
		calls  int
	}{{"t1", 2}, {"t2", 1}} {
		before := len(srv.Requests())
		if _, err := a.Generate(context.Background(), []keel.Message{userMsg(keel.TextPart{Text: "Count"}, file)}, agent.WithThread(tc.thread), agent.WithResource("u")); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		if got := len(srv.Requests()) - before; got != tc.calls {
			t.Errorf("Got(turn %d on thread %s) = %d model calls; want %d", i+1, tc.thread, got, tc.calls)
		}
	}
}
