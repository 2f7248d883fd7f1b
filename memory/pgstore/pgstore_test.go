package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
	"github.com/keel-go/keel/memory/pgstore"
	"github.com/keel-go/keel/memory/storetest"
)

// TestServersStartAtOnce opens one new database from several stores at
// once, as servers starting together do: the schema is made once, and
// every store works.
func TestServersStartAtOnce(t *testing.T) {
	url := pgtest.Start(t)
	ctx := context.Background()
	const servers = 4
	stores := make([]*pgstore.Store, servers)
	errs := make([]error, servers)
	var wg sync.WaitGroup
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = pgstore.Open(ctx, url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Got(Open() of server %d) = %v; want no error", i, err)
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	for i, s := range stores {
		if _, err := s.CreateThread(ctx, memory.Thread{ID: fmt.Sprintf("t%d", i), ResourceID: "r1"}); err != nil {
			t.Errorf("Got(CreateThread() on server %d) = %v; want no error", i, err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows, version int
	if err := conn.QueryRow(ctx, `SELECT COUNT(*), MAX(version) FROM keel_schema_version`).Scan(&rows, &version); err != nil || rows != migrationCount(t) || version != migrationCount(t) {
		t.Errorf("Got(keel_schema_version) = %d rows, version %d, %v; want %d rows and version (one per migration)", rows, version, err, migrationCount(t))
	}
	if _, err := conn.Exec(ctx, `INSERT INTO keel_schema_version (version) VALUES (99)`); err != nil {
		t.Fatal(err)
	}
	if s, err := pgstore.Open(ctx, url); err == nil {
		s.Close()
		t.Errorf("Got(Open(database of schema version 99)) = nil; want an error")
	}
}

// TestSharedBlobsAcrossServers saves and deletes messages holding the same
// files from two stores at once, as two servers would: no save may lose a
// file to a concurrent delete, and no blob may outlive its messages.
func TestSharedBlobsAcrossServers(t *testing.T) {
	url := pgtest.Start(t)
	a, b := open(t, url), open(t, url)
	ctx := context.Background()
	shared := [][]byte{storetest.Bytes(1, 2048), storetest.Bytes(2, 2048), storetest.Bytes(3, 2048)}
	const rounds = 15
	var wg sync.WaitGroup
	errs := make(chan error, 4*rounds)
	for w, s := range []*pgstore.Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := s.CreateThread(ctx, memory.Thread{ID: id, ResourceID: "r1"}); err != nil {
					errs <- err
					return
				}
				m := keel.Message{ID: "m", Role: keel.RoleUser}
				// Opposite orders across writers, to provoke lock cycles.
				for j := range shared {
					k := j
					if w%2 == 1 {
						k = len(shared) - 1 - j
					}
					m.Parts = append(m.Parts, keel.FilePart{Data: shared[k], Filename: fmt.Sprint(k)})
				}
				if _, err := s.SaveMessages(ctx, "r1", id, []keel.Message{m}); err != nil {
					errs <- fmt.Errorf("save %s: %w", id, err)
					return
				}
				// Every other thread is deleted again at once.
				if i%2 == 0 {
					if err := s.DeleteThread(ctx, "r1", id); err != nil {
						errs <- fmt.Errorf("delete %s: %w", id, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Got(concurrent save or delete) = %v; want no error", err)
	}
	page, err := a.ListThreads(ctx, "r1", memory.ListThreadsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range page.Threads {
		msgs, err := b.ListMessages(ctx, "r1", th.ID, memory.ListMessagesOptions{})
		if err != nil || len(msgs.Messages) != 1 || len(msgs.Messages[0].Parts) != 3 {
			t.Errorf("Got(ListMessages(%s)) = %v; want one message with its 3 files", th.ID, err)
		}
	}
	st, err := a.BlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3; page.Total > 0 && st.Blobs != want {
		t.Errorf("Got(BlobStats().Blobs) = %d with %d threads left; want %d", st.Blobs, page.Total, want)
	}
	for _, th := range page.Threads {
		if err := b.DeleteThread(ctx, "r1", th.ID); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := a.BlobStats(ctx); st.Blobs != 0 {
		t.Errorf("Got(BlobStats().Blobs) = %d after deleting every thread; want 0", st.Blobs)
	}
}

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
		{"same size", `UPDATE keel_blobs SET data = $1 WHERE digest = $2`, []any{[]byte("THE QUARTERLY FIGURES"), digest}},
		{"other size", `UPDATE keel_blobs SET data = $1, size = 3 WHERE digest = $2`, []any{[]byte("abc"), digest}},
		{"size only", `UPDATE keel_blobs SET size = 1 WHERE digest = $1`, []any{digest}},
		{"parts not JSON", `UPDATE keel_messages SET parts = '[{' WHERE id = 'm1'`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := pgtest.Start(t)
			s := open(t, url)
			ctx := context.Background()
			if _, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1"}); err != nil {
				t.Fatal(err)
			}
			m := keel.Message{ID: "m1", Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: file, Filename: "q.txt"}}}
			if _, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{m}); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, c.damage, c.args...); err != nil {
				t.Fatalf("damaging the database: %v", err)
			}
			page, err := s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
			if !errors.Is(err, memory.ErrCorrupt) {
				t.Errorf("Got(ListMessages()) = %d messages, %v; want an error wrapping ErrCorrupt", len(page.Messages), err)
			}
		})
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
