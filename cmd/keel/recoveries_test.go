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
		`keel: a.zip replaced by a placeholder (unsupported-file-handler; google/gemini-2.5-flash refused application/zip before, so keel did not send it again (remembered until 2026-12-02T10:00:00Z); evidence: 502 Internal error encountered.)`,
		`keel: big.tar not uploaded: it is over the upload limit. (unsupported-file-handler; the provider's SDK refused it before sending: file parts of type application/x-tar are not supported)`,
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

// A thread's words, its files' names and its recoveries are anyone's:
// keel threads show and list print them without the escape sequences and
// control characters that would work the operator's terminal (retitle the
// window, clear the screen, hide a line); --json keeps them as stored.
func TestThreadsShowHostileText(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	store, err := sqlitestore.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := store.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "default", Title: "plan\x1b[2J"}); err != nil {
		t.Fatal(err)
	}
	evil := "leads\x1b]0;pwned\x07\u009b2J.xlsx"
	user := keelmsg.Message{Role: keelmsg.RoleUser, Parts: []keelmsg.Part{keelmsg.TextPart{Text: "hi\x1b[31m red\r\x1b[1Ahidden"},
		keelmsg.FilePart{Filename: evil, MediaType: xlsxType, Data: []byte("PK")}}}
	recs := []processor.Recovery{{Processor: "unsupported-file-handler", Action: processor.OutcomePlaceholder,
		Files: []processor.RecoveredFile{{Name: evil, MediaType: xlsxType, Outcome: processor.OutcomePlaceholder}}}}
	reply := keelmsg.Message{Role: keelmsg.RoleAssistant, Parts: []keelmsg.Part{keelmsg.TextPart{Text: "ok"}},
		Metadata: map[string]any{agent.MetadataRecoveries: recs}}
	if _, err := store.SaveMessages(ctx, "default", "t1", []keelmsg.Message{user, reply}); err != nil {
		t.Fatal(err)
	}
	store.Close()

	for _, args := range [][]string{{"threads", "show", "t1", "--db", db}, {"threads", "list", "--db", db}} {
		out := mustKeel(t, dir, env(), args...).stdout
		if strings.ContainsAny(out, "\x1b\u009b\a\r") {
			t.Errorf("Got(keel %s) = %q; want no escape sequence or control character", strings.Join(args, " "), out)
		}
	}
	out := mustKeel(t, dir, env(), "threads", "show", "t1", "--db", db).stdout
	for _, want := range []string{"hi redhidden", "file leads.xlsx", "keel: leads.xlsx replaced by a placeholder"} {
		if !strings.Contains(out, want) {
			t.Errorf("Got(threads show) = %q; want %q", out, want)
		}
	}
	th := decode[showOut](t, "threads show --json", mustKeel(t, dir, env(), "threads", "show", "t1", "--db", db, "--json").stdout)
	if len(th.Messages) != 2 || len(th.Messages[0].Files) != 1 || th.Messages[0].Files[0].Name != evil {
		t.Errorf("Got(--json) = %+v; want the file's name as stored", th.Messages)
	}
}
