package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/storetest"
)

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
