package main_test

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// TestRunThreadFlags: --thread continues a thread that must exist, and
// says how to start one otherwise; --new-thread starts one with a chosen
// id, which must be free.
func TestRunThreadFlags(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	gem := geminiEnv(srv)

	res := keel(t, dir, gem, "run", "--thread", "typo", "Hi")
	if res.code != 1 || !strings.Contains(res.stderr, "resource default has no thread typo") ||
		!strings.Contains(res.stderr, "keel threads list") || !strings.Contains(res.stderr, "--new-thread typo") {
		t.Errorf("Got(run --thread typo) = %d, %q; want 1, pointing to keel threads list and --new-thread", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("Got(model calls for an unknown thread) = %d; want none", n)
	}

	mustKeel(t, dir, gem, "run", "--new-thread", "chosen", "First")
	mustKeel(t, dir, gem, "run", "--thread", "chosen", "Second")
	last, _ := srv.Requests()[len(srv.Requests())-1].Decode()
	if texts := last.UserTexts(); len(texts) != 2 || texts[0] != "First" || texts[1] != "Second" {
		t.Errorf("Got(user turns of the continued thread) = %q; want First, Second", texts)
	}
	list := decode[[]struct{ ID string }](t, "threads list", mustKeel(t, dir, env(), "threads", "list", "--json").stdout)
	if len(list) != 1 || list[0].ID != "chosen" {
		t.Errorf("Got(threads) = %+v; want chosen alone: the unknown thread was not made", list)
	}

	res = keel(t, dir, gem, "run", "--new-thread", "chosen", "Again")
	if res.code != 1 || !strings.Contains(res.stderr, "thread chosen already exists: continue it with --thread chosen") {
		t.Errorf("Got(run --new-thread of an existing thread) = %d, %q; want 1, saying to use --thread", res.code, res.stderr)
	}
	if res := keel(t, dir, gem, "run", "--thread", "chosen", "--new-thread", "x", "Hi"); res.code != 2 || !strings.Contains(res.stderr, "not both") {
		t.Errorf("Got(run with both flags) = %d, %q; want 2", res.code, res.stderr)
	}
}

// TestReadOnlyCommandsCreateNothing: the threads commands open an
// existing database only; a mistyped path fails and leaves nothing.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	for _, args := range [][]string{
		{"threads", "list"}, {"threads", "show", "t1"}, {"threads", "delete", "t1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			typo := filepath.Join(dir, "typo", "k.db")
			for _, extra := range [][]string{{"--db", typo}, nil} {
				res := keel(t, dir, env(), append(args, extra...)...)
				if res.code != 1 || !strings.Contains(res.stderr, "no database at") || !strings.Contains(res.stderr, "keel run and keel serve make it") {
					t.Errorf("Got(keel %q) = %d, %q; want 1, saying there is no database", append(args, extra...), res.code, res.stderr)
				}
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 0 {
				t.Errorf("Got(files left in %s) = %v; want none", dir, entries)
			}
		})
	}
}

// TestThreadsDelete: keel threads delete removes the thread and the files
// uploaded for it to the resource's sandbox; other threads keep theirs,
// and another resource's thread is not found.
func TestThreadsDelete(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), xlsxBytes())
	for _, th := range []string{"t1", "t2"} {
		mustKeel(t, dir, geminiEnv(srv), "run", "--new-thread", th, "--file", "leads.xlsx", "Count")
	}
	uploads := filepath.Join(dir, ".keel", "sandbox", "resource-"+localsandbox.DirName("default"), "uploads")
	for _, th := range []string{"t1", "t2"} {
		if _, err := os.Stat(filepath.Join(uploads, th)); err != nil {
			t.Fatalf("Got(stat of %s's uploads) error %v; want the refused file there", th, err)
		}
	}

	if res := keel(t, dir, env(), "threads", "delete", "--resource", "someone-else", "t1"); res.code != 1 || !strings.Contains(res.stderr, "has no thread t1") {
		t.Errorf("Got(delete of another resource's thread) = %d, %q; want 1, not found", res.code, res.stderr)
	}
	res := mustKeel(t, dir, env(), "threads", "delete", "t1")
	if !strings.Contains(res.stderr, "deleted thread t1 of resource default, with the files uploaded for it") {
		t.Errorf("Got(stderr) = %q; want the deletion told", res.stderr)
	}
	if _, err := os.Stat(filepath.Join(uploads, "t1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(stat of t1's uploads) error %v; want them gone", err)
	}
	if _, err := os.Stat(filepath.Join(uploads, "t2")); err != nil {
		t.Errorf("Got(stat of t2's uploads) error %v; want them kept", err)
	}
	if res := keel(t, dir, env(), "threads", "show", "t1"); res.code != 1 || !strings.Contains(res.stderr, "has no thread t1") {
		t.Errorf("Got(threads show t1 after the delete) = %d, %q; want not found", res.code, res.stderr)
	}
	if res := keel(t, dir, env(), "threads", "delete", "t1"); res.code != 1 || !strings.Contains(res.stderr, "has no thread t1") {
		t.Errorf("Got(a second delete) = %d, %q; want 1, not found", res.code, res.stderr)
	}
}

// TestServeDeleteThread: the server's DELETE removes the thread's uploads
// from the resource's sandbox too, and leaves another resource's alone.
func TestServeDeleteThread(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	sheet := base64.StdEncoding.EncodeToString(xlsxBytes())
	for _, th := range []string{"t1", "t2"} {
		body := `{"messages":[{"role":"user","content":[{"type":"text","text":"Count"},` +
			`{"type":"file","mediaType":"` + xlsxType + `","data":"` + sheet + `","filename":"leads.xlsx"}]}],` +
			`"memory":{"thread":"` + th + `","resource":"u1"}}`
		if code, b := call(t, "POST", s.url+"/api/agents/assistant/generate", "", body); code != 200 {
			t.Fatalf("Got(generate in %s) = %d %s; want 200", th, code, b)
		}
	}
	uploads := filepath.Join(dir, ".keel", "sandbox", "resource-"+localsandbox.DirName("u1"), "uploads")
	for _, th := range []string{"t1", "t2"} {
		if _, err := os.Stat(filepath.Join(uploads, th)); err != nil {
			t.Fatalf("Got(stat of %s's uploads) error %v; want the refused file there", th, err)
		}
	}
	if code, _ := call(t, "DELETE", s.url+"/api/memory/threads/t1?resourceId=someone-else", "", ""); code != 404 {
		t.Errorf("Got(DELETE of u1's thread as someone else) = %d; want 404", code)
	}
	if _, err := os.Stat(filepath.Join(uploads, "t1")); err != nil {
		t.Errorf("Got(stat of t1's uploads after another resource's DELETE) error %v; want them kept", err)
	}
	if code, b := call(t, "DELETE", s.url+"/api/memory/threads/t1?resourceId=u1", "", ""); code != 200 || !strings.Contains(string(b), "Thread deleted") {
		t.Fatalf("Got(DELETE t1) = %d %s; want 200 Thread deleted", code, b)
	}
	if _, err := os.Stat(filepath.Join(uploads, "t1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(stat of t1's uploads after DELETE) error %v; want them gone", err)
	}
	if _, err := os.Stat(filepath.Join(uploads, "t2")); err != nil {
		t.Errorf("Got(stat of t2's uploads) error %v; want them kept", err)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}
