package agent_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
)

// stores are the stores a recovery must survive: one that keeps Go values,
// one that keeps JSON.
var stores = []struct {
	name string
	open func(t *testing.T) memory.Store
}{
	{"inmemory", func(t *testing.T) memory.Store { return memory.NewInMemory() }},
	{"sqlite", func(t *testing.T) memory.Store {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

func TestRecoveriesAreStoredWithTheTurn(t *testing.T) {
	refusal := &keel.APICallError{Provider: "google", StatusCode: 502, Message: "Internal error encountered."}
	cases := []struct {
		name    string
		replies []keelReply
		// fails: the run ends in an error, and the recoveries are on the
		// input message instead of the reply.
		fails bool
	}{
		{"answered", []keelReply{{Err: refusal}, {Text: "I could not open it."}}, false},
		{"failed again", []keelReply{{Err: refusal}, {Err: &keel.APICallError{Provider: "google", StatusCode: 400, Message: "no"}}}, true},
	}
	for _, st := range stores {
		for _, c := range cases {
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				forModes(t, func(t *testing.T, m mode) {
					mem := st.open(t)
					a := newAgent(t, agent.Config{Model: keeltest.NewModel(c.replies...), Memory: mem})
					res, events, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Read these"}, xlsx("leads.xlsx"))},
						agent.WithThread("t-1"), agent.WithResource("r-1"))
					if c.fails != (err != nil) {
						t.Fatalf("Got(run error) = %v; want failure %v", err, c.fails)
					}
					page, lerr := mem.ListMessages(context.Background(), "r-1", "t-1", memory.ListMessagesOptions{})
					if lerr != nil {
						t.Fatal(lerr)
					}
					var holder keel.Message
					if c.fails {
						if len(page.Messages) != 1 {
							t.Fatalf("Got(stored messages) = %d; want the input only", len(page.Messages))
						}
						holder = page.Messages[0]
						if holder.Role != keel.RoleUser || !holder.HasFiles() {
							t.Fatalf("Got(stored input) = %+v; want the user's message, file kept", holder)
						}
					} else {
						if len(page.Messages) != 2 {
							t.Fatalf("Got(stored messages) = %d; want input and reply", len(page.Messages))
						}
						holder = page.Messages[1]
						if recs, _ := agent.StoredRecoveries(page.Messages[0]); recs != nil {
							t.Errorf("Got(recoveries on the input of a run that answered) = %+v; want none", recs)
						}
					}
					got, err := agent.StoredRecoveries(holder)
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != 1 || got[0].Action != "placeholder" || len(got[0].Files) != 1 || got[0].Files[0].Name != "leads.xlsx" ||
						got[0].Cause == nil || got[0].Cause.Status != 502 || got[0].Cause.Provider != "google" {
						t.Fatalf("Got(stored recoveries) = %+v; want the placeholder for leads.xlsx, caused by google's 502", got)
					}
					if res != nil && !reflect.DeepEqual(got, res.Recoveries) {
						t.Errorf("Got(stored recoveries) = %+v; want the run's own %+v", got, res.Recoveries)
					}
					for _, ev := range events {
						if ev.Type == agent.EventRecovery && !reflect.DeepEqual(ev.Recovery, got[0]) {
							t.Errorf("Got(stored recovery) = %+v; want the one streamed, %+v", got[0], ev.Recovery)
						}
					}
				})
			})
		}
	}
}

func TestStoredRecoveriesRejectsOtherValues(t *testing.T) {
	cases := []struct {
		name    string
		value   any
		wantErr bool
	}{
		{"none", nil, false},
		{"json list", []any{map[string]any{"processor": "p", "action": "uploaded"}}, false},
		{"a string", "uploaded", true},
		{"a list of numbers", []any{1, 2}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := keel.Message{ID: "m", Metadata: map[string]any{agent.MetadataRecoveries: c.value}}
			recs, err := agent.StoredRecoveries(m)
			if (err != nil) != c.wantErr {
				t.Fatalf("Got(StoredRecoveries(%v)) = %+v, %v; want error %v", c.value, recs, err, c.wantErr)
			}
			if err != nil && errors.Unwrap(err) == nil {
				t.Errorf("Got(error) = %v; want it to wrap the decoding error", err)
			}
		})
	}
}
