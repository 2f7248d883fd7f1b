package sqlitestore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// turn is what an agent asks of its memory for one text generate on a new
// thread: look the thread up (a miss), create it, load its messages, save
// the input, save the reply.
func turn(ctx context.Context, s memory.Store, id string) error {
	if _, err := s.GetThread(ctx, "bench", id); err == nil {
		return fmt.Errorf("GetThread(%q) found a new thread", id)
	}
	if _, err := s.CreateThread(ctx, memory.Thread{ID: id, ResourceID: "bench"}); err != nil {
		return err
	}
	if _, err := s.ListMessages(ctx, "bench", id, memory.ListMessagesOptions{}); err != nil {
		return err
	}
	in := []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Hello there, how are you?"}}}}
	if _, err := s.SaveMessages(ctx, "bench", id, in); err != nil {
		return err
	}
	out := []keel.Message{{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "Fine, thank you."}}}}
	_, err := s.SaveMessages(ctx, "bench", id, out)
	return err
}

// BenchmarkTurn is the store's share of one text generate, sequential and
// from many goroutines at once. Its context can be cancelled, as a
// server's request context can.
func BenchmarkTurn(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("serial", func(b *testing.B) {
		s := open(b, filepath.Join(b.TempDir(), "keel.db"))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := turn(ctx, s, fmt.Sprintf("t%d", i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		s := open(b, filepath.Join(b.TempDir(), "keel.db"))
		var n atomic.Int64
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := turn(ctx, s, fmt.Sprintf("t%d", n.Add(1))); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
