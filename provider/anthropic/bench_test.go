package anthropic_test

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
)

// discardServer answers every request with a short text answer after
// reading and dropping its body, so the server holds nothing of it.
func discardServer(tb testing.TB) *httptest.Server {
	answer := []byte(textBody("ok"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkGenerate measures one call's request building and response
// parsing, with the local HTTP round trip.
func BenchmarkGenerate(b *testing.B) {
	m := newModel(b, discardServer(b).URL)
	req := &keel.Request{Messages: []keel.Message{keel.SystemText("Be brief."), keel.UserText("Say hello")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStream is BenchmarkGenerate for a streamed text answer.
func BenchmarkStream(b *testing.B) {
	body := []byte(streamTextBody("Hello from keel, streamed in a few pieces."))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	m := newModel(b, srv.URL)
	req := &keel.Request{Messages: []keel.Message{keel.UserText("Say hello")}}
	b.ReportAllocs()
	for b.Loop() {
		for _, err := range m.Stream(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func pdf10MiB() []byte {
	pdf := make([]byte, 10<<20)
	for i := range pdf {
		pdf[i] = byte(i * 31)
	}
	return pdf
}

// BenchmarkGenerate10MiBPDF measures one request carrying a 10 MiB PDF as
// bytes: B/op, and the peak of heap memory above what was in use before
// the call (the PDF itself excluded), sampled while the call runs.
func BenchmarkGenerate10MiBPDF(b *testing.B) {
	benchmarkPDF(b, keel.FilePart{Data: pdf10MiB(), MediaType: "application/pdf", Filename: "report.pdf"})
}

// BenchmarkGenerate10MiBPDFDataURL is the same PDF given as a data: URL,
// whose base64 the adapter passes on without decoding it.
func BenchmarkGenerate10MiBPDFDataURL(b *testing.B) {
	benchmarkPDF(b, keel.FilePart{URL: keel.DataURL("application/pdf", pdf10MiB()), MediaType: "application/pdf", Filename: "report.pdf"})
}

func benchmarkPDF(b *testing.B, file keel.FilePart) {
	m := newModel(b, discardServer(b).URL)
	req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise this report."}, file,
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

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
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
