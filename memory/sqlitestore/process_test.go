package sqlitestore_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/memory/storetest"
)

// The tests below re-run this test binary as a child process; these
// variables tell the child what to do.
const (
	childEnv     = "KEEL_SQLITESTORE_CHILD"
	childDBEnv   = "KEEL_SQLITESTORE_DB"
	childNameEnv = "KEEL_SQLITESTORE_NAME"
)

const (
	writesPerProcess = 15
	crashFiles       = 48 // 1 MiB each: a save long enough to be killed in
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "write":
		os.Exit(report(childWrite()))
	case "crash":
		os.Exit(report(childCrash()))
	default:
		fmt.Fprintf(os.Stderr, "unknown %s %q\n", childEnv, os.Getenv(childEnv))
		os.Exit(2)
	}
}

func report(err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writerMessage is message i of the named writer: one file shared by all
// writers and one of its own.
func writerMessage(name string, i int) keel.Message {
	return keel.Message{ID: fmt.Sprintf("%s-%02d", name, i), Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: name},
		keel.FilePart{Data: storetest.Bytes(1, 64<<10), Filename: "shared.bin"},
		keel.FilePart{Data: storetest.Bytes(uint64(1000+i), 4<<10), Filename: name + ".bin"},
	}}
}

// childWrite waits for the parent's go, so that all writers overlap, then
// opens the file (perhaps new), creates the thread unless another writer
// did, and saves its messages.
func childWrite() error {
	name := os.Getenv(childNameEnv)
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("%s: waiting for go: %w", name, err)
	}
	s, err := sqlitestore.Open(os.Getenv(childDBEnv))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "shared", ResourceID: "r1"}); err != nil && !errors.Is(err, memory.ErrConflict) {
		return fmt.Errorf("%s: %w", name, err)
	}
	for i := range writesPerProcess {
		if _, err := s.SaveMessages(ctx, "r1", "shared", []keel.Message{writerMessage(name, i)}); err != nil {
			return fmt.Errorf("%s: save %d: %w", name, i, err)
		}
	}
	return nil
}

// startWriters starts a child writer per name, and lets them all go at
// once when every one is ready; the returned function waits for them.
func startWriters(t *testing.T, db string, names ...string) func() {
	t.Helper()
	var cmds []*exec.Cmd
	var gos []io.WriteCloser
	for _, name := range names {
		cmd := child(t, "write", db, name)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
			t.Fatalf("Got(child %s's first line) = %q, %v; want ready", name, line, err)
		}
		cmds, gos = append(cmds, cmd), append(gos, in)
	}
	for _, in := range gos {
		fmt.Fprintln(in, "go")
		in.Close()
	}
	return func() {
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("Got(child writer %s) = %v; want success", names[i], err)
			}
		}
	}
}

// wantWriters checks that the thread holds every message of the named
// writers, whole.
func wantWriters(t *testing.T, s *sqlitestore.Store, names ...string) {
	t.Helper()
	page, err := s.ListMessages(context.Background(), "r1", "shared", memory.ListMessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != len(names)*writesPerProcess {
		t.Fatalf("Got(ListMessages().Total) = %d; want %d", page.Total, len(names)*writesPerProcess)
	}
	for _, m := range page.Messages {
		name, num, _ := strings.Cut(m.ID, "-")
		i, _ := strconv.Atoi(num)
		want := writerMessage(name, i)
		if len(m.Parts) != 3 || m.Text() != name ||
			!bytes.Equal(m.Parts[1].(keel.FilePart).Data, want.Parts[1].(keel.FilePart).Data) ||
			!bytes.Equal(m.Parts[2].(keel.FilePart).Data, want.Parts[2].(keel.FilePart).Data) {
			t.Errorf("Got(message %s) differs from what its writer saved", m.ID)
		}
	}
	st, err := s.BlobStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// One shared file, and one per message index (the writers' own files
	// are seeded by index alone).
	if st.Blobs != 1+writesPerProcess {
		t.Errorf("Got(BlobStats().Blobs) = %d; want %d", st.Blobs, 1+writesPerProcess)
	}
}

func child(t *testing.T, mode, db, name string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childDBEnv+"="+db, childNameEnv+"="+name)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestTwoProcesses writes one thread from two child processes and this
// one at the same time: every message of each is stored whole.
func TestTwoProcesses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "keel.db")
	s := open(t, db)
	ctx := context.Background()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "shared", ResourceID: "r1"}); err != nil {
		t.Fatal(err)
	}
	wait := startWriters(t, db, "a", "b")
	for i := range writesPerProcess {
		if _, err := s.SaveMessages(ctx, "r1", "shared", []keel.Message{writerMessage("parent", i)}); err != nil {
			t.Errorf("Got(SaveMessages(parent %d)) = %v; want no error", i, err)
		}
	}
	wait()
	wantWriters(t, s, "a", "b", "parent")
}

// TestProcessesOpenNewFile has three processes open a file that does not
// exist yet at once: it is created and migrated once, and all of them
// write to it.
func TestProcessesOpenNewFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "keel.db")
	startWriters(t, db, "a", "b", "c")()
	wantWriters(t, open(t, db), "a", "b", "c")
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var rows int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&rows); err != nil || rows != migrationCount(t) {
		t.Errorf("Got(schema_version rows) = %d, %v; want %d, one per migration", rows, err, migrationCount(t))
	}
}

func crashMessage() keel.Message {
	m := keel.Message{ID: "big", Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "many files"}}}
	for i := range crashFiles {
		m.Parts = append(m.Parts, keel.FilePart{Data: storetest.Bytes(uint64(5000+i), 1<<20), Filename: fmt.Sprintf("f%02d.bin", i)})
	}
	return m
}

// childCrash saves one large message, saying so before and after on
// stdout; the parent kills it in between.
func childCrash() error {
	s, err := sqlitestore.Open(os.Getenv(childDBEnv))
	if err != nil {
		return err
	}
	m := crashMessage()
	fmt.Println("saving")
	if _, err := s.SaveMessages(context.Background(), "r1", "t1", []keel.Message{m}); err != nil {
		return err
	}
	fmt.Println("saved")
	return s.Close()
}

// TestCrashWhileSaving kills (SIGKILL) a process while it is writing a
// large message to the file: afterwards the message is there whole or not
// at all, no blob of it is left over, and the file is sound and writable.
func TestCrashWhileSaving(t *testing.T) {
	db := filepath.Join(t.TempDir(), "keel.db")
	s := open(t, db)
	ctx := context.Background()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{keel.UserText("before")}); err != nil {
		t.Fatal(err)
	}

	cmd := child(t, "crash", db, "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	if line := <-lines; line != "saving" {
		t.Fatalf("Got(child's first line) = %q; want saving", line)
	}
	// Kill once the uncommitted transaction has reached the write-ahead
	// log, that is in the middle of writing.
	const spilled = 8 << 20
	deadline := time.Now().Add(30 * time.Second)
	walSize := int64(0)
	for walSize < spilled && time.Now().Before(deadline) {
		if fi, err := os.Stat(db + "-wal"); err == nil {
			walSize = fi.Size()
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	saved := false
	for line := range lines {
		saved = saved || line == "saved"
	}
	if walSize < spilled {
		t.Fatalf("Got(write-ahead log size before the kill) = %d; want at least %d", walSize, spilled)
	}

	// A new store on the file, as after a restart.
	s2 := open(t, db)
	page, err := s2.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
	if err != nil {
		t.Fatalf("ListMessages() after the crash = %v; want no error", err)
	}
	st, err := s2.BlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	switch page.Total {
	case 1:
		t.Logf("killed with %d bytes of log written: the message is not stored", walSize)
		if st.Blobs != 0 {
			t.Errorf("Got(BlobStats().Blobs) = %d after an aborted save; want 0", st.Blobs)
		}
	case 2:
		t.Logf("killed with %d bytes of log written, after the commit (saved line seen: %v)", walSize, saved)
		want := crashMessage()
		want.CreatedAt = page.Messages[1].CreatedAt
		if page.Messages[1].ID != "big" || len(page.Messages[1].Parts) != len(want.Parts) || st.Blobs != crashFiles {
			t.Errorf("Got(stored message) = %q with %d parts, %d blobs; want the whole message", page.Messages[1].ID, len(page.Messages[1].Parts), st.Blobs)
		}
	default:
		t.Fatalf("Got(ListMessages().Total) = %d after the crash; want 1 or 2", page.Total)
	}
	if saved && page.Total != 2 {
		t.Errorf("Got(messages) = %d although the child reported the save; want 2", page.Total)
	}

	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var check string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("Got(PRAGMA integrity_check) = %q, %v; want ok", check, err)
	}
	if _, err := s2.SaveMessages(ctx, "r1", "t1", []keel.Message{keel.UserText("after")}); err != nil {
		t.Errorf("Got(SaveMessages() after the crash) = %v; want no error", err)
	}
}
