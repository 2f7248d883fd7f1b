package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

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
// the blob reads per load for a [memory.BlobReporter]. Window and SaveTo
// load the last 10 messages of, and save one message to, threads of 20
// and of 100,000 messages in turn, and report the time on each and their
// ratio: their cost must not grow with the thread.
// Refusals looks up a model's entries of a [memory.RefusalLedger] among
// a few hundred.
func Benchmark(b *testing.B, open func(b *testing.B) memory.Store) {
	ctx := context.Background()
	b.Run("Window", func(b *testing.B) { benchmarkLong(b, open, windowStep, nil) })
	b.Run("SaveTo", func(b *testing.B) { benchmarkLong(b, open, saveStep, refillShort(b)) })
	b.Run("Refusals", func(b *testing.B) { benchRefusals(b, open(b)) })
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

// threadSizes are the lengths of the threads Window and SaveTo measure.
var threadSizes = [2]int{20, 100_000}

// benchmarkLong runs step on a thread of each of threadSizes, in one
// store, in turn, and reports the time of a step on each (ns/step-20,
// ns/step-100000) and their ratio: taken call by call in one loop, the
// ratio holds on a machine whose load drifts. before, when not nil, runs
// off the clock before a step.
func benchmarkLong(b *testing.B, open func(b *testing.B) memory.Store, step func(s memory.Store, id string) error, before func(s memory.Store, id *string, n, i int)) {
	s := open(b)
	var ids [2]string
	for k, n := range threadSizes {
		ids[k] = fmt.Sprintf("long-%d", n)
		fillThread(b, s, ids[k], n)
	}
	var (
		spent [2]time.Duration
		steps [2]int
	)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := i % 2
		if before != nil {
			before(s, &ids[k], threadSizes[k], steps[k])
		}
		start := time.Now()
		if err := step(s, ids[k]); err != nil {
			b.Fatal(err)
		}
		spent[k] += time.Since(start)
		steps[k]++
	}
	per := func(k int) float64 { return float64(spent[k].Nanoseconds()) / float64(max(steps[k], 1)) }
	for k, n := range threadSizes {
		b.ReportMetric(per(k), fmt.Sprintf("ns/step-%d", n))
	}
	b.ReportMetric(per(1)/per(0), "long/short")
}

// fillThread creates the thread id with n short messages, user and
// assistant in turn, a millisecond apart, saved 1,000 a call.
func fillThread(b *testing.B, s memory.Store, id string, n int) {
	ctx := context.Background()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: id, ResourceID: "bench"}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		batch := make([]keel.Message, 0, 1000)
		for j := i; j < min(n, i+1000); j++ {
			role := keel.RoleUser
			if j%2 == 1 {
				role = keel.RoleAssistant
			}
			batch = append(batch, keel.Message{Role: role, CreatedAt: t0.Add(time.Duration(j) * time.Millisecond),
				Parts: []keel.Part{keel.TextPart{Text: fmt.Sprintf("message %d of a long conversation.", j)}}})
		}
		if _, err := s.SaveMessages(ctx, "bench", id, batch); err != nil {
			b.Fatal(err)
		}
	}
}

// windowStep loads the last 10 messages, as an agent loads its history.
func windowStep(s memory.Store, id string) error {
	page, err := s.ListMessages(context.Background(), "bench", id, memory.ListMessagesOptions{Last: 10})
	if err == nil && len(page.Messages) != 10 {
		err = fmt.Errorf("ListMessages(Last 10) = %d messages; want 10", len(page.Messages))
	}
	return err
}

// saveStep saves one message to the thread, as an agent saves a turn's
// reply.
func saveStep(s memory.Store, id string) error {
	msg := []keel.Message{{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "A reply of ordinary length."}}}}
	_, err := s.SaveMessages(context.Background(), "bench", id, msg)
	return err
}

// refillShort keeps the short thread short: every n saves to it, a fresh
// thread of n is filled. The long one grows by the saves, a few thousand.
func refillShort(b *testing.B) func(s memory.Store, id *string, n, i int) {
	return func(s memory.Store, id *string, n, i int) {
		if n < 1000 && i > 0 && i%n == 0 {
			*id = "short-" + memory.NewID()
			fillThread(b, s, *id, n)
		}
	}
}

// benchRefusals looks up one model's entries among 300 (30 models of 10
// providers, 10 types each), as a model call does on a cache miss.
func benchRefusals(b *testing.B, s memory.Store) {
	l, ok := s.(memory.RefusalLedger)
	if !ok {
		b.Skipf("%T is not a memory.RefusalLedger", s)
	}
	ctx := context.Background()
	for p := range 10 {
		for m := range 3 {
			for k := range 10 {
				r := memory.Refusal{Provider: fmt.Sprint("provider-", p), Model: fmt.Sprint("model-", m), MediaType: fmt.Sprintf("application/x-type-%d", k),
					LearnedAt: t0, ExpiresAt: t0.Add(24 * time.Hour), Status: 400, Reason: "unsupported"}
				if err := l.RecordRefusal(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		rs, err := l.Refusals(ctx, "provider-4", "model-1", t0.Add(time.Hour))
		if err != nil || len(rs) != 10 {
			b.Fatalf("Got(Refusals()) = %d entries, %v; want 10", len(rs), err)
		}
	}
}
