package pgstore_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/memory"
)

// TestUpgradeFromFirstSchema opens a database written by the first schema
// (seq from an identity, no message counts, no ledger), with a thread in
// it: the thread keeps its messages and their order, gets its count, and
// takes new messages after the old ones.
func TestUpgradeFromFirstSchema(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t)
	schema, err := os.ReadFile("migrations/001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{string(schema), nil},
		{`CREATE TABLE keel_schema_version (version integer NOT NULL)`, nil},
		{`INSERT INTO keel_schema_version VALUES (1)`, nil},
		{`INSERT INTO keel_threads VALUES ('t1', 'r1', 'old', 'null', $1, $1)`, []any{at}},
		// Another thread's messages take identity values in between.
		{`INSERT INTO keel_threads VALUES ('t2', 'r1', 'other', 'null', $1, $1)`, []any{at}},
		{`INSERT INTO keel_messages (thread_id, id, role, parts, metadata, created_at) VALUES ('t1', 'b', 'user', '[{"type":"text","text":"first"}]', 'null', $1)`, []any{at}},
		{`INSERT INTO keel_messages (thread_id, id, role, parts, metadata, created_at) VALUES ('t2', 'x', 'user', '[]', 'null', $1)`, []any{at}},
		{`INSERT INTO keel_messages (thread_id, id, role, parts, metadata, created_at) VALUES ('t1', 'a', 'user', '[{"type":"text","text":"second"}]', 'null', $1)`, []any{at}},
	} {
		if _, err := conn.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("writing the first schema: %v", err)
		}
	}
	conn.Close(ctx)

	s := open(t, url)
	th, err := s.GetThread(ctx, "r1", "t1")
	if err != nil || th.MessageCount != 2 {
		t.Fatalf("Got(GetThread(t1) after the upgrade) = %+v, %v; want the old thread with 2 messages", th, err)
	}
	if _, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{{ID: "c", Role: keel.RoleUser, CreatedAt: at,
		Parts: []keel.Part{keel.TextPart{Text: "new, at the old ones' time"}}}}); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range page.Messages {
		got = append(got, m.ID)
	}
	if !slices.Equal(got, []string{"b", "a", "c"}) || page.Total != 3 {
		t.Errorf("Got(ListMessages()) = %q of %d; want [b a c] of 3: the new message after the old ones of its time", got, page.Total)
	}
	if th, err := s.GetThread(ctx, "r1", "t2"); err != nil || th.MessageCount != 1 {
		t.Errorf("Got(GetThread(t2).MessageCount) = %d, %v; want 1", th.MessageCount, err)
	}
}
