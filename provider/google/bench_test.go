package google_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google/googletest"
)

// discardServer answers every request with a text answer after reading
// and dropping the body, so it holds nothing of what it received.
// It counts the bytes it read into *read, when read is not nil.
func discardServer(tb testing.TB, read *atomic.Int64) *httptest.Server {
	answer := []byte(googletest.TextBody("ok"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if read != nil {
			read.Store(n)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkGenerate measures one call's request building and response
// parsing, with the local HTTP round trip.
func BenchmarkGenerate(b *testing.B) {
	m := newModel(b, discardServer(b, nil).URL)
	req := &keel.Request{Messages: []keel.Message{keel.SystemText("Be brief."), keel.UserText("Say hello")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate10MiBPDF measures one request carrying a 10 MiB PDF
// inline: B/op, and the peak of heap memory above what was in use before
// the call (the PDF itself excluded), sampled while the call runs.
func BenchmarkGenerate10MiBPDF(b *testing.B) {
	m := newModel(b, discardServer(b, nil).URL)
	pdf := make([]byte, 10<<20)
	for i := range pdf {
		pdf[i] = byte(i * 31)
	}
	req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise this report."},
		keel.FilePart{Data: pdf, MediaType: "application/pdf", Filename: "report.pdf"},
	}}}}
	var peak uint64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		s := startHeapSampler()
		b.StartTimer()
		if _, err := m.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak = max(peak, s.stop())
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}

// heapSampler samples the bytes of heap objects (live or not yet
// collected) and keeps the highest value above the starting point.
type heapSampler struct {
	base uint64
	peak atomic.Uint64
	done chan struct{}
	wg   sync.WaitGroup
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startHeapSampler() *heapSampler {
	s := &heapSampler{base: heapBytes(), done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *heapSampler) sample() {
	if h := heapBytes(); h > s.base && h-s.base > s.peak.Load() {
		s.peak.Store(h - s.base)
	}
}

// stop ends sampling and returns the peak above the start, in bytes.
func (s *heapSampler) stop() uint64 {
	s.sample()
	close(s.done)
	s.wg.Wait()
	return s.peak.Load()
}
