package main_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	keelmsg "github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
)

// keel threads show tells, per file, what keel did on the turn and why,
// for each outcome and cause a run stores; --json gives the recoveries as
// stored.
func TestThreadsShowRecoveries(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	store, err := sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := store.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "default"}); err != nil {
		t.Fatal(err)
	}
	until := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	recs := []processor.Recovery{
		{Processor: "unsupported-file-handler", Action: processor.OutcomeConverted,
			Files: []processor.RecoveredFile{{Name: "leads.xlsx", MediaType: xlsxType, Size: 4810, SHA256: "ab12", Outcome: processor.OutcomeConverted,
				Path: "/home/user/uploads/t1/ab12.xlsx", Conversion: &processor.Conversion{Kind: "xlsx", As: "CSV", Description: `sheet "Leads", 3 rows × 2 columns`, Chars: 42}}}},
		{Processor: "unsupported-file-handler", Action: processor.OutcomePlaceholder,
			Cause: &processor.RecoveryCause{Kind: processor.CauseRememberedRefusal, Provider: "google", Model: "gemini-2.5-flash",
				MediaType: "application/zip", Status: 502, Message: "Internal error encountered.", ExpiresAt: until},
			Files: []processor.RecoveredFile{{Name: "a.zip", MediaType: "application/zip", Outcome: processor.OutcomePlaceholder}}},
		{Processor: "unsupported-file-handler", Action: processor.OutcomeNotUploaded,
			Cause: &processor.RecoveryCause{Kind: processor.CauseUnsupportedFunctionality, Message: "file parts of type application/x-tar are not supported"},
			Files: []processor.RecoveredFile{{Name: "big.tar", Outcome: processor.OutcomeNotUploaded, Reason: "it is over the upload limit."}}},
	}
	reply := keelmsg.Message{Role: keelmsg.RoleAssistant, Parts: []keelmsg.Part{keelmsg.TextPart{Text: "Read."}},
		Metadata: map[string]any{agent.MetadataRecoveries: recs}}
	if _, err := store.SaveMessages(ctx, "default", "t1", []keelmsg.Message{keelmsg.UserText("Read these"), reply}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	text := mustKeel(t, dir, env(), "threads", "show", "t1", "--db", db).stdout
	for _, want := range []string{
		`keel: leads.xlsx converted to text (CSV, sheet "Leads", 3 rows × 2 columns, 42 characters) and uploaded to the sandbox at /home/user/uploads/t1/ab12.xlsx (unsupported-file-handler; by its own rule)`,
		`keel: a.zip replaced by a placeholder (unsupported-file-handler; google/gemini-2.5-flash refused application/zip before, remembered until 2026-12-02T10:00:00Z; evidence 502: Internal error encountered.)`,
		`keel: big.tar not uploaded: it is over the upload limit. (unsupported-file-handler; the SDK refused it: file parts of type application/x-tar are not supported)`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Got(threads show) = %q; want the line %q", text, want)
		}
	}
	th := decode[showOut](t, "threads show --json", mustKeel(t, dir, env(), "threads", "show", "t1", "--db", db, "--json").stdout)
	if len(th.Messages) != 2 || len(th.Messages[1].Recoveries) != 3 {
		t.Fatalf("Got(threads show --json) = %+v; want the reply's three recoveries", th)
	}
	got := th.Messages[1].Recoveries
	if got[0].Files[0].Path != "/home/user/uploads/t1/ab12.xlsx" || got[1].Cause == nil || got[1].Cause.Kind != processor.CauseRememberedRefusal ||
		got[1].Cause.Status != 502 || got[2].Cause.Kind != processor.CauseUnsupportedFunctionality {
		t.Errorf("Got(--json recoveries) = %+v; want them as stored", got)
	}
}
