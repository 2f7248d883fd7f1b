package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/storetest"
)

// TestCheckpointsInTheBackground checks that commits leave the log to a
// goroutine of the store's: no connection checkpoints as it commits, and
// the database file still takes in what was written, well before the
// log reaches the 1,000 pages at which SQLite would have done it.
func TestCheckpointsInTheBackground(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keel.db")
	s := open(t, path)
	if n, err := s.AutoCheckpointForTest(ctx); err != nil || n != 0 {
		t.Fatalf("Got(wal_autocheckpoint) = %d, %v; want 0", n, err)
	}
	before := fileSize(t, path)
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	const files, size = 48, 32 << 10 // 1.5 MiB: about 400 pages
	for i := range files {
		msg := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
			keel.FilePart{Data: storetest.Bytes(uint64(i), size), MediaType: "application/pdf", Filename: fmt.Sprintf("%d.pdf", i)},
		}}
		if _, err := s.SaveMessages(ctx, "r", "t", []keel.Message{msg}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for fileSize(t, path) < before+files*size {
		if time.Now().After(deadline) {
			t.Fatalf("Got(database file) = %d bytes after writing %d; want the log checkpointed into it", fileSize(t, path), files*size)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLogStaysSmall checks that the log is started over while writes and
// reads go on all the time: checkpoints made beside the writes alone
// would never find the whole log copied, and it would hold everything
// ever written.
func TestLogStaysSmall(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keel.db")
	s := open(t, path)
	const writers, saves, size = 4, 150, 128 << 10 // 75 MiB written
	for w := range writers {
		if _, err := s.CreateThread(ctx, memory.Thread{ID: fmt.Sprintf("t%d", w), ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for w := range writers {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.ListMessages(ctx, "r", fmt.Sprintf("t%d", w), memory.ListMessagesOptions{PerPage: 5}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	var wg sync.WaitGroup
	var largest atomic.Int64
	for w := range writers {
		wg.Go(func() {
			for i := range saves {
				msg := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
					keel.FilePart{Data: storetest.Bytes(uint64(w*saves+i), size), MediaType: "application/pdf", Filename: "f.pdf"},
				}}
				if _, err := s.SaveMessages(ctx, "r", fmt.Sprintf("t%d", w), []keel.Message{msg}); err != nil {
					t.Error(err)
					return
				}
				if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > largest.Load() {
					largest.Store(fi.Size())
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	const limit = 48 << 20
	t.Logf("largest log: %.1f MiB", float64(largest.Load())/(1<<20))
	if n := largest.Load(); n > limit {
		t.Errorf("Got(largest log) = %.1f MiB after writing %d MiB; want at most %d MiB", float64(n)/(1<<20), writers*saves*size>>20, limit>>20)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
