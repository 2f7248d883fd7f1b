package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
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

// TestMissingBinaries runs TestStart in a child process that finds no
// PostgreSQL: without CI it skips, saying why; with CI it fails.
func TestMissingBinaries(t *testing.T) {
	if os.Getenv(pgtest.BinDirEnv) != "" {
		t.Skip("this is the child run of TestMissingBinaries")
	}
	cases := []struct {
		ci       string
		wantFail bool
		wantOut  string
	}{
		{"", false, "--- SKIP: TestStart"},
		{"true", true, "--- FAIL: TestStart"},
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStart$", "-test.v")
		env := []string{pgtest.BinDirEnv + "=" + t.TempDir()}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") {
				env = append(env, kv)
			}
		}
		if c.ci != "" {
			env = append(env, "CI="+c.ci)
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != c.wantFail {
			t.Errorf("Got(child run with CI=%q failed) = %v; want %v\n%s", c.ci, failed, c.wantFail, out)
		}
		if !strings.Contains(string(out), c.wantOut) || !strings.Contains(string(out), pgtest.SkipReason) {
			t.Errorf("Got(child run with CI=%q) =\n%s\nwant %q and the reason %q", c.ci, out, c.wantOut, pgtest.SkipReason)
		}
	}
}
