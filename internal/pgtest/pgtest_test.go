package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestStart checks that each test gets its own empty database on a live
// server.
func TestStart(t *testing.T) {
	ctx := context.Background()
	urls := map[string]bool{}
	for range 2 {
		url := pgtest.Start(t)
		if urls[url] {
			t.Fatalf("Got(Start()) = %q twice; want a new database each time", url)
		}
		urls[url] = true
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatalf("Connect(%q) = %v; want no error", url, err)
		}
		var tables int
		err = conn.QueryRow(ctx, `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables)
		if err != nil || tables != 0 {
			t.Errorf("Got(tables in a new database) = %d, %v; want 0", tables, err)
		}
		if _, err := conn.Exec(ctx, `CREATE TABLE t (x int)`); err != nil {
			t.Errorf("Got(CREATE TABLE) = %v; want no error", err)
		}
		conn.Close(ctx)
	}
}
