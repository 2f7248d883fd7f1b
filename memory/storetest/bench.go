package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// BenchThread returns the thread the benchmarks save and load: 50
// messages, user and assistant in turn, five of the user messages each
// holding a distinct 1 MiB file (seeded by seed), the rest text.
func BenchThread(seed uint64) []keel.Message {
	msgs := make([]keel.Message, 0, 50)
	for i := range 50 {
		role := keel.RoleUser
		if i%2 == 1 {
			role = keel.RoleAssistant
		}
		m := keel.Message{ID: fmt.Sprintf("m%02d", i), Role: role, CreatedAt: at(i), Parts: []keel.Part{
			keel.TextPart{Text: fmt.Sprintf("message %d: some ordinary text of a conversation turn.", i)},
		}}
		if i%10 == 0 {
			m.Parts = append(m.Parts, keel.FilePart{
				Data:      Bytes(seed*100+uint64(i), 1<<20),
				MediaType: "application/pdf",
				Filename:  fmt.Sprintf("report-%d.pdf", i),
			})
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// Benchmark measures saving and loading [BenchThread] in the stores open
// returns (one store per sub-benchmark). Save stores a new thread each
// iteration, one call per user/assistant pair as an agent saves turns,
// with files new to the store; Load lists the whole thread and reports
// the blob reads per load for a [memory.BlobReporter].
func Benchmark(b *testing.B, open func(b *testing.B) memory.Store) {
	ctx := context.Background()
	b.Run("Save", func(b *testing.B) {
		s := open(b)
		threads := make([][]keel.Message, b.N)
		for i := range threads {
			threads[i] = BenchThread(uint64(i + 1))
		}
		b.ReportAllocs()
		b.SetBytes(5 << 20)
		b.ResetTimer()
		for i := range b.N {
			id := fmt.Sprintf("bench-%d", i)
			if _, err := s.CreateThread(ctx, memory.Thread{ID: id, ResourceID: "bench"}); err != nil {
				b.Fatal(err)
			}
			msgs := threads[i]
			for j := 0; j < len(msgs); j += 2 {
				if _, err := s.SaveMessages(ctx, "bench", id, msgs[j:j+2]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Load", func(b *testing.B) {
		s := open(b)
		if _, err := s.CreateThread(ctx, memory.Thread{ID: "bench", ResourceID: "bench"}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.SaveMessages(ctx, "bench", "bench", BenchThread(1)); err != nil {
			b.Fatal(err)
		}
		reporter, counts := s.(memory.BlobReporter)
		var before memory.BlobStats
		if counts {
			before, _ = reporter.BlobStats(ctx)
		}
		b.ReportAllocs()
		b.SetBytes(5 << 20)
		b.ResetTimer()
		for range b.N {
			page, err := s.ListMessages(ctx, "bench", "bench", memory.ListMessagesOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(page.Messages) != 50 {
				b.Fatalf("Got(ListMessages()) = %d messages; want 50", len(page.Messages))
			}
		}
		b.StopTimer()
		if counts {
			after, _ := reporter.BlobStats(ctx)
			b.ReportMetric(float64(after.Reads-before.Reads)/float64(b.N), "blobreads/op")
		}
	})
}
