package providertest

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// heapMetric counts the bytes of heap objects, live or not yet collected:
// unlike the live heap after a collection, it shows a buffer that was
// built, sent and dropped within one call.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapSampleEvery is how often the sampler looks while fn runs; a 10 MiB
// request takes milliseconds, so this sees each of its buffers.
const heapSampleEvery = 200 * time.Microsecond

// PeakHeap runs fn and returns the highest number of bytes of heap objects
// (live or not yet collected) above what was in use when fn started,
// sampled every 200µs while fn runs and once after it returns. It collects
// garbage first, so the starting point is the live heap and what the
// caller built before (a request's file, say) is not counted.
//
// The figure is a sampled lower bound of the true peak: an allocation that
// lives for less than the sampling interval can be missed.
func PeakHeap(fn func()) (peakBytes uint64) {
	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	sample := func() {
		if h := heapBytes(); h > base && h-base > peak.Load() {
			peak.Store(h - base)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(heapSampleEvery)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	defer func() {
		close(done)
		wg.Wait()
	}()
	fn()
	sample()
	return peak.Load()
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// PDF10MiB returns 10 MiB of patterned bytes standing in for a large PDF:
// big enough that a copy of it, or of its base64, shows in [PeakHeap].
func PDF10MiB() []byte {
	pdf := make([]byte, 10<<20)
	for i := range pdf {
		pdf[i] = byte(i * 31)
	}
	return pdf
}

// PDFRequest returns a user message asking for a summary of file.
func PDFRequest(file keel.FilePart) *keel.Request {
	return &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise this report."}, file,
	}}}}
}

// BenchmarkPeakHeap runs m.Generate(req) once per iteration and reports,
// besides the allocations, the highest [PeakHeap] of any call as
// "peak-MiB". Only the calls are timed: the collection and the sampler's
// start and stop are outside the timer.
func BenchmarkPeakHeap(b *testing.B, m keel.Model, req *keel.Request) {
	b.Helper()
	var peak uint64
	var err error
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		peak = max(peak, PeakHeap(func() {
			b.StartTimer()
			_, err = m.Generate(context.Background(), req)
			b.StopTimer()
		}))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
