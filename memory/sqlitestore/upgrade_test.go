package sqlitestore_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// TestUpgradeFromFirstSchema opens a file written by the first schema
// (unprefixed tables, no message counts, no ledger), with a thread in it:
// the thread keeps its messages, their order and files, gets its count,
// and takes new messages after the old ones.
func TestUpgradeFromFirstSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keel.db")
	schema, err := os.ReadFile("migrations/001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	const data = "a,b\n1,2\n"
	const digest = "492d5ea496056f1a6a6592241032fab764c321596317930b4fa0e1e8bc3b7470"
	for _, q := range []string{
		string(schema),
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version VALUES (1)`,
		`INSERT INTO threads VALUES ('t1', 'r1', 'old', 'null', 1000, 2000)`,
		`INSERT INTO blobs VALUES ('` + digest + `', 8, CAST('` + data + `' AS BLOB))`,
		`INSERT INTO messages VALUES ('t1', 'b', 1, 'user', '[{"type":"text","text":"first"}]', 'null', 5000)`,
		`INSERT INTO messages VALUES ('t1', 'a', 2, 'user', '[{"type":"file","blob":"` + digest + `","size":8,"filename":"x.csv"}]', 'null', 5000)`,
		`INSERT INTO message_blobs VALUES ('t1', 'a', '` + digest + `')`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("writing the first schema: %v", err)
		}
	}
	raw.Close()

	s := open(t, path)
	th, err := s.GetThread(ctx, "r1", "t1")
	if err != nil || th.MessageCount != 2 || th.Title != "old" {
		t.Fatalf("Got(GetThread(t1) after the upgrade) = %+v, %v; want the old thread with 2 messages", th, err)
	}
	if _, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{{ID: "c", Role: keel.RoleUser, CreatedAt: time.UnixMilli(5000),
		Parts: []keel.Part{keel.TextPart{Text: "new, at the old ones' time"}}}}); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{Last: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{page.Messages[0].ID, page.Messages[1].ID}; !slices.Equal(got, []string{"a", "c"}) || page.Total != 3 {
		t.Errorf("Got(ListMessages(Last 2)) = %q of %d; want [a c] of 3: the new message after the old ones of its time", got, page.Total)
	}
	f := page.Messages[0].Parts[0].(keel.FilePart)
	if string(f.Data) != data || f.SHA256 != digest {
		t.Errorf("Got(old file) = %q, SHA256 %s; want %q, %s", f.Data, f.SHA256, data, digest)
	}
}
