package main_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// TestRunProviderFile sends a 25 MB PDF through keel run to a local
// Gemini server with Gemini's real 20 MB limit: the first turn uploads it
// to the Files API and makes one call naming it; later turns of the
// thread make one call each and upload nothing, the reference kept in the
// --db file between processes; once Gemini forgets the file (its real
// 403), the turn uploads it again and tries once more.
func TestRunProviderFile(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{PayloadLimit: 20971520})
	dir := t.TempDir()
	pdf := bytes.Repeat([]byte("0123456789 a page of the scanned annual report\n"), 25_000_000/47+1)[:25_000_000]
	copy(pdf, "%PDF-1.7\n")
	writeFile(t, filepath.Join(dir, "report.pdf"), pdf)
	db := filepath.Join(dir, "k.db")
	turn := func(args ...string) turnJSON {
		t.Helper()
		res := mustKeel(t, dir, geminiEnv(srv), append([]string{"run", "--json", "--db", db, "--sandbox", filepath.Join(dir, "sb")}, args...)...)
		return decode[turnJSON](t, "run output", res.stdout)
	}
	modelCalls := func() []googletest.Request {
		var out []googletest.Request
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r.Path, "/v1beta/models/") {
				out = append(out, r)
			}
		}
		return out
	}
	out := turn("--new-thread", "t1", "--file", "report.pdf", "Summarise")
	calls := modelCalls()
	ups := srv.Uploads()
	if out.Calls != 1 || len(calls) != 1 || len(ups) != 1 || ups[0].Size != int64(len(pdf)) {
		t.Fatalf("Got(turn 1) = %d calls, %d requests, %d uploads; want 1 call after 1 upload of the whole PDF", out.Calls, len(calls), len(ups))
	}
	uri := ups[0].URI
	if body := string(calls[0].Body); len(body) > 1<<20 || !strings.Contains(body, `"fileUri":"`+uri+`"`) {
		t.Fatalf("Got(turn 1's call) = %d bytes; want the PDF named by %s", len(body), uri)
	}
	if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "provider-file" || out.Recoveries[0].Files[0].Outcome != "provider-file" {
		t.Errorf("Got(turn 1's recoveries) = %+v; want report.pdf sent by reference", out.Recoveries)
	}
	for n := 2; n <= 3; n++ {
		out := turn("--thread", "t1", fmt.Sprintf("Question %d", n))
		calls := modelCalls()
		if out.Calls != 1 || len(calls) != n || len(srv.Uploads()) != 1 || !strings.Contains(string(calls[n-1].Body), uri) {
			t.Errorf("Got(turn %d) = %d calls, %d requests, %d uploads; want 1 call naming %s, no new upload", n, out.Calls, len(calls), len(srv.Uploads()), uri)
		}
	}
	srv.DeleteFile(uri)
	out = turn("--thread", "t1", "Question 4")
	calls = modelCalls()
	ups = srv.Uploads()
	if out.Calls != 2 || len(calls) != 5 || len(ups) != 2 || !strings.Contains(string(calls[4].Body), ups[1].URI) {
		t.Errorf("Got(turn after Gemini forgot the file) = %d calls, %d requests, %d uploads; want 2 calls, the second naming a new upload", out.Calls, len(calls), len(ups))
	}
	// The line keel run prints says what was done.
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--db", db, "--sandbox", filepath.Join(dir, "sb"), "--thread", "t1", "Question 5")
	if !strings.Contains(res.stderr, "keel run: report.pdf sent by reference, from the provider's file store (") ||
		!strings.Contains(res.stderr, "; too large to go inline to google/gemini-2.5-flash: ") {
		t.Errorf("Got(stderr) = %q; want the line saying the PDF went by reference", res.stderr)
	}
}
