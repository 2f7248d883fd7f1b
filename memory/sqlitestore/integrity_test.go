package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
	"github.com/keel-go/keel/memory/sqlitestore"
)

// TestCorruptBlob damages a stored file behind the store's back: reading
// it is an error wrapping ErrCorrupt, never wrong bytes.
func TestCorruptBlob(t *testing.T) {
	file := []byte("the quarterly figures")
	digest := stored.Digest(file)
	cases := []struct {
		name   string
		damage string
		args   []any
	}{
		{"same size", `UPDATE keel_blobs SET data = ? WHERE digest = ?`, []any{[]byte("THE QUARTERLY FIGURES"), digest}},
		{"other size", `UPDATE keel_blobs SET data = ?, size = 3 WHERE digest = ?`, []any{[]byte("abc"), digest}},
		{"size only", `UPDATE keel_blobs SET size = 1 WHERE digest = ?`, []any{digest}},
		{"missing", `DELETE FROM keel_blobs WHERE digest = ?`, []any{digest}},
		{"parts not JSON", `UPDATE keel_messages SET parts = '[{' WHERE id = 'm1'`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "keel.db")
			s := open(t, db)
			ctx := context.Background()
			if _, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1"}); err != nil {
				t.Fatal(err)
			}
			m := keel.Message{ID: "m1", Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: file, Filename: "q.txt"}}}
			if _, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{m}); err != nil {
				t.Fatal(err)
			}
			raw, err := sql.Open("sqlite", db) // without foreign keys, so a referenced blob can go
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(c.damage, c.args...); err != nil {
				t.Fatalf("damaging the file: %v", err)
			}
			page, err := s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
			if !errors.Is(err, memory.ErrCorrupt) {
				t.Errorf("Got(ListMessages()) = %d messages, %v; want an error wrapping ErrCorrupt", len(page.Messages), err)
			}
		})
	}
}

// TestMigrations checks that a new file gets the schema once, that
// reopening applies nothing twice, and that a file from a newer program is
// refused.
func TestMigrations(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sub dir?#%", "keel.db")
	if _, err := sqlitestore.Open(db); err == nil {
		t.Fatalf("Got(Open(%q) in a missing directory) = nil; want an error", db)
	}
	db = filepath.Join(t.TempDir(), "odd ?#% name.db")
	for range 2 {
		s := open(t, db)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := sql.Open("sqlite", "file:"+filepath.Join(filepath.Dir(db), "odd %3f%23%25 name.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var rows, version int
	if err := raw.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&rows, &version); err != nil {
		t.Fatalf("reading schema_version: %v", err)
	}
	if n := migrationCount(t); rows != n || version != n {
		t.Errorf("Got(schema_version) = %d rows, version %d; want %d rows, version %d (one per migration)", rows, version, n, n)
	}
	var mode string
	if err := raw.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("Got(PRAGMA journal_mode) = %q, %v; want wal", mode, err)
	}
	if _, err := raw.Exec(`INSERT INTO schema_version (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	if s, err := sqlitestore.Open(db); err == nil {
		s.Close()
		t.Errorf("Got(Open(file of schema version 99)) = nil; want an error")
	}
	if _, err := sqlitestore.Open(""); !errors.Is(err, memory.ErrInvalid) {
		t.Errorf("Got(Open(\"\")) = %v; want an error wrapping ErrInvalid", err)
	}
}

// migrationCount is how many migrations the package's files hold.
func migrationCount(t *testing.T) int {
	t.Helper()
	files, err := filepath.Glob("migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v, %d files", err, len(files))
	}
	return len(files)
}
