package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/provider/google/googletest"
)

// TestRunPostgres runs keel on a real PostgreSQL database named by --db,
// then by KEEL_DATABASE_URL: the refused file is kept there byte for byte.
func TestRunPostgres(t *testing.T) {
	url := pgtest.Start(t)
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	data := xlsxBytes()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), data)
	sum := sha256.Sum256(data)

	res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--db", url, "--new-thread", "pg-1", "--file", "leads.xlsx", "Count the leads")
	out := decode[runJSON](t, "run output", res.stdout)
	if out.Text != googletest.DefaultText || len(out.Recoveries) != 1 || out.Recoveries[0].Action != "uploaded" {
		t.Errorf("Got(run on PostgreSQL) = %+v; want the answer after the upload", out)
	}
	show := mustKeel(t, dir, env("KEEL_DATABASE_URL="+url), "threads", "show", "pg-1", "--json")
	th := decode[showOut](t, "threads show", show.stdout)
	if len(th.Messages) != 2 || len(th.Messages[0].Files) != 1 || th.Messages[0].Files[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("Got(thread on PostgreSQL) = %+v; want leads.xlsx with sha256 %x", th, sum)
	}
}
