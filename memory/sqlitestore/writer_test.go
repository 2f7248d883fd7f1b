package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/memory/storetest"
)

// TestGroupedWrites saves from many goroutines at once, so that writes
// share transactions, with some calls failing for their own reasons: a
// thread of another resource, a context cancelled before or while the
// call runs. Every call that succeeded is stored whole, and no call that
// failed left anything.
func TestGroupedWrites(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "keel.db"))
	ctx := context.Background()
	for _, id := range []string{"t1", "t2"} {
		if _, err := s.CreateThread(ctx, memory.Thread{ID: id, ResourceID: "r1"}); err != nil {
			t.Fatal(err)
		}
	}
	const calls = 200
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			callCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			resource := "r1"
			switch i % 5 {
			case 1:
				cancel()
			case 2:
				time.AfterFunc(time.Duration(i%7)*50*time.Microsecond, cancel)
			case 3:
				resource = "r2" // the thread is not this resource's
			}
			m := keel.Message{ID: fmt.Sprintf("m%03d", i), Role: keel.RoleUser, Parts: []keel.Part{
				keel.TextPart{Text: fmt.Sprintf("call %d", i)},
				keel.FilePart{Data: storetest.Bytes(uint64(i), 16<<10), Filename: "f.bin"},
			}}
			_, errs[i] = s.SaveMessages(callCtx, resource, fmt.Sprintf("t%d", 1+i%2), []keel.Message{m})
		})
	}
	wg.Wait()
	stored := make(map[string]keel.Message)
	for _, id := range []string{"t1", "t2"} {
		page, err := s.ListMessages(ctx, "r1", id, memory.ListMessagesOptions{})
		if err != nil {
			t.Fatalf("ListMessages(%q) = %v; want no error", id, err)
		}
		for _, m := range page.Messages {
			stored[m.ID] = m
		}
	}
	for i, err := range errs {
		id := fmt.Sprintf("m%03d", i)
		m, ok := stored[id]
		switch {
		case i%5 == 0 || i%5 == 4:
			if err != nil || !ok || len(m.Parts) != 2 {
				t.Errorf("Got(SaveMessages(%s)) = %v, stored %v with %d parts; want saved whole", id, err, ok, len(m.Parts))
			}
		case i%5 == 1 && !errors.Is(err, context.Canceled):
			t.Errorf("Got(SaveMessages(%s, cancelled)) = %v; want context.Canceled", id, err)
		case i%5 == 3 && !errors.Is(err, memory.ErrNotFound):
			t.Errorf("Got(SaveMessages(%s, other resource)) = %v; want ErrNotFound", id, err)
		case err == nil && !ok, err != nil && ok:
			t.Errorf("Got(SaveMessages(%s)) = %v, stored %v; want stored exactly if it succeeded", id, err, ok)
		}
	}
	st, err := s.BlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Blobs != len(stored) {
		t.Errorf("Got(BlobStats().Blobs) = %d; want %d, one per stored message", st.Blobs, len(stored))
	}
}

// TestGroupUndone has a write end its shared transaction, as SQLite does
// on an I/O error: that write fails, and the writes that shared the
// transaction run again and are stored.
func TestGroupUndone(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "keel.db"))
	ctx := context.Background()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1"}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	held := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // holds the transaction while the others queue
		s.WriteForTest(ctx, func(func(string, ...any) error) error {
			close(held)
			<-release
			return nil
		})
	})
	<-held
	queued := func(n int) {
		waitUntil(t, fmt.Sprintf("%d writes queued", n), func() bool { return s.QueuedWrites() >= n })
	}
	save := func(id string) error {
		m := keel.Message{ID: id, Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: id}}}
		_, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{m})
		return err
	}
	var errB, errC, errD error
	wg.Go(func() { errB = save("mB") })
	queued(1)
	wg.Go(func() {
		errC = s.WriteForTest(ctx, func(exec func(string, ...any) error) error {
			if err := exec(`INSERT INTO keel_threads (id, resource_id, title, metadata, created_at, updated_at) VALUES ('tC', 'r1', '', '{}', 1, 1)`); err != nil {
				return err
			}
			if err := exec(`ROLLBACK`); err != nil {
				return err
			}
			return errors.New("transaction ended")
		})
	})
	queued(2)
	wg.Go(func() { errD = save("mD") })
	queued(3)
	close(release)
	wg.Wait()
	if errB != nil || errD != nil {
		t.Errorf("Got(SaveMessages(mB), SaveMessages(mD)) = %v, %v; want no errors", errB, errD)
	}
	if errC == nil {
		t.Errorf("Got(write ending the transaction) = nil; want its error")
	}
	page, err := s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
	if err != nil || page.Total != 2 {
		t.Errorf("Got(ListMessages()) = %d messages, %v; want mB and mD", page.Total, err)
	}
	if _, err := s.GetThread(ctx, "r1", "tC"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Got(GetThread(tC)) = %v; want ErrNotFound: the failed write left nothing", err)
	}
}

// lockedStore opens a store with thread t1 of r1, and another connection
// to its file (as another process would have) that holds the write lock
// until the test rolls it back or ends.
func lockedStore(t *testing.T) (*sqlitestore.Store, *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keel.db")
	s := open(t, path)
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1"}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := raw.Conn(ctx)
	if err != nil {
		raw.Close()
		t.Fatal(err)
	}
	// Cleanups run last first: the store closes after the other
	// connection has let go of the lock.
	t.Cleanup(func() { raw.Close() })
	t.Cleanup(func() { other.Close() })
	t.Cleanup(func() { _, _ = other.ExecContext(ctx, `ROLLBACK`) })
	if _, err := other.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	return s, other
}

// TestWriteGivesUpOnLock has another process's connection hold the write
// lock: a save, and one queued behind it, end with their contexts rather
// than wait out BusyTimeout, and write nothing.
func TestWriteGivesUpOnLock(t *testing.T) {
	ctx := context.Background()
	s, other := lockedStore(t)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			callCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			m := keel.Message{ID: fmt.Sprintf("m%d", i), Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "hi"}}}
			_, errs[i] = s.SaveMessages(callCtx, "r1", "t1", []keel.Message{m})
		})
	}
	wg.Wait()
	if d := time.Since(start); d > sqlitestore.BusyTimeout/2 {
		t.Errorf("Got(saves under another's lock) = returned after %v; want soon after their 200ms deadline", d)
	}
	for i, err := range errs {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Got(SaveMessages(m%d) under another's lock) = %v; want context.DeadlineExceeded", i, err)
		}
	}
	if _, err := other.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
	if err != nil || page.Total != 0 {
		t.Errorf("Got(ListMessages()) = %d messages, %v; want none", page.Total, err)
	}
}

// TestWritePanics has a write panic while sharing a transaction: the
// panic goes on in its own caller, the write sharing the transaction is
// stored, and the store goes on writing.
func TestWritePanics(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "keel.db"))
	ctx := context.Background()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1"}); err != nil {
		t.Fatal(err)
	}
	release, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // holds the transaction while the others queue
		s.WriteForTest(ctx, func(func(string, ...any) error) error {
			close(held)
			<-release
			return nil
		})
	})
	<-held
	var recovered any
	wg.Go(func() {
		defer func() { recovered = recover() }()
		s.WriteForTest(ctx, func(exec func(string, ...any) error) error {
			if err := exec(`INSERT INTO keel_threads (id, resource_id, title, metadata, created_at, updated_at) VALUES ('tP', 'r1', '', '{}', 1, 1)`); err != nil {
				return err
			}
			panic("write bug")
		})
	})
	waitUntil(t, "1 writes queued", func() bool { return s.QueuedWrites() >= 1 })
	var errSave error
	wg.Go(func() {
		m := keel.Message{ID: "m1", Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "hi"}}}
		_, errSave = s.SaveMessages(ctx, "r1", "t1", []keel.Message{m})
	})
	waitUntil(t, "2 writes queued", func() bool { return s.QueuedWrites() >= 2 })
	close(release)
	wg.Wait()
	if recovered != "write bug" {
		t.Errorf("Got(recover() in the panicking caller) = %v; want %q", recovered, "write bug")
	}
	if errSave != nil {
		t.Errorf("Got(SaveMessages() sharing its transaction) = %v; want no error", errSave)
	}
	if _, err := s.GetThread(ctx, "r1", "tP"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Got(GetThread(tP)) = %v; want ErrNotFound: the panicking write left nothing", err)
	}
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t2", ResourceID: "r1"}); err != nil {
		t.Errorf("Got(CreateThread() after the panic) = %v; want no error", err)
	}
}

// TestGroupGivesUpWithOwnErrors checks that writes sharing a transaction
// that waits in vain for another process's lock each get their own
// context's error (context.DeadlineExceeded here), not the shared
// transaction's context.Canceled.
func TestGroupGivesUpWithOwnErrors(t *testing.T) {
	ctx := context.Background()
	s, _ := lockedStore(t)
	save := func(callCtx context.Context, id string) error {
		m := keel.Message{ID: id, Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "hi"}}}
		_, err := s.SaveMessages(callCtx, "r1", "t1", []keel.Message{m})
		return err
	}
	// Each call's deadline passes when the test says, once the writes are
	// where they must be, however slow the machine.
	calls := []*expiring{newExpiring(ctx), newExpiring(ctx), newExpiring(ctx)}
	errs := make([]error, 3)
	var wg sync.WaitGroup
	// m0 leads alone and waits for the lock; m1 and m2 queue meanwhile,
	// and share the next transaction once m0 gives up.
	wg.Go(func() { errs[0] = save(calls[0], "m0") })
	waitUntil(t, "m0 leads", s.Leading)
	for i := 1; i <= 2; i++ {
		wg.Go(func() { errs[i] = save(calls[i], fmt.Sprintf("m%d", i)) })
	}
	waitUntil(t, "m1 and m2 queued", func() bool { return s.QueuedWrites() == 2 })
	calls[0].expire()
	// m1 leads m2 in one transaction, which waits for the lock.
	waitUntil(t, "m1 and m2 taken into one transaction", func() bool { return s.QueuedWrites() == 0 && s.Leading() })
	calls[1].expire()
	calls[2].expire()
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Got(SaveMessages(m%d) under another's lock) = %v; want context.DeadlineExceeded", i, err)
		}
	}
}

// expiring is a context whose deadline passes when expire is called: its
// Err is then context.DeadlineExceeded, as a timeout's would be.
type expiring struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiring(parent context.Context) *expiring {
	return &expiring{Context: parent, done: make(chan struct{})}
}

func (e *expiring) Done() <-chan struct{} { return e.done }

func (e *expiring) Err() error {
	select {
	case <-e.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (e *expiring) expire() { e.once.Do(func() { close(e.done) }) }

// waitUntil polls cond until it holds, failing the test after 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Got(%s) = not after 10 s; want it", what)
		}
	}
}
