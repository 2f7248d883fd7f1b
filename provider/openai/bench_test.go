package openai_test

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
	"github.com/keel-go/keel/provider/openai"
)

// discardServer reads and drops each request body (so the server's copy
// does not count against the adapter) and answers reply.
func discardServer(tb testing.TB, reply string, contentType string) *httptest.Server {
	tb.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, reply)
	}))
	tb.Cleanup(s.Close)
	return s
}

func benchModel(tb testing.TB, url string, api string) *openai.Model {
	tb.Helper()
	m, err := openai.New("gpt-4o-mini", openai.Options{APIKey: "sk-bench", BaseURL: url + "/v1", API: api})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func benchRequest() *keel.Request {
	return &keel.Request{
		Messages: []keel.Message{keel.SystemText("You are terse."), keel.UserText("What is the weather in Paris?")},
		Tools:    []keel.ToolDefinition{weatherTool},
	}
}

// BenchmarkGenerate is the adapter's overhead per call: building the
// request, the HTTP round trip to a local server, and parsing the answer.
func BenchmarkGenerate(b *testing.B) {
	for _, api := range []string{openai.APIChat, openai.APIResponses} {
		b.Run(api, func(b *testing.B) {
			reply := chatText("It is sunny in Paris.").Body
			if api == openai.APIResponses {
				reply = responsesText("It is sunny in Paris.").Body
			}
			m := benchModel(b, discardServer(b, reply, "application/json").URL, api)
			req := benchRequest()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Generate(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStream is the same for a streamed answer of a few deltas.
func BenchmarkStream(b *testing.B) {
	for _, api := range []string{openai.APIChat, openai.APIResponses} {
		b.Run(api, func(b *testing.B) {
			reply := chatStreamText("It is sunny in Paris today.").Body
			if api == openai.APIResponses {
				reply = responsesStreamText("It is sunny in Paris today.").Body
			}
			m := benchModel(b, discardServer(b, reply, "text/event-stream").URL, api)
			req := benchRequest()
			b.ReportAllocs()
			for b.Loop() {
				for _, err := range m.Stream(context.Background(), req) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func pdf10MiB() []byte {
	pdf := make([]byte, 10<<20)
	for i := range pdf {
		pdf[i] = byte(i * 31)
	}
	return pdf
}

func pdfRequest(file keel.FilePart) *keel.Request {
	return &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise this report."}, file,
	}}}}
}

// BenchmarkGenerate10MiBPDF measures one Chat Completions request carrying
// a 10 MiB PDF as bytes: B/op, and the peak of heap memory above what was
// in use before the call (the PDF itself excluded), sampled while the call
// runs.
func BenchmarkGenerate10MiBPDF(b *testing.B) {
	for _, tc := range []struct {
		name string
		file keel.FilePart
	}{
		{"bytes", keel.FilePart{Data: pdf10MiB(), MediaType: "application/pdf", Filename: "report.pdf"}},
		{"data-url", keel.FilePart{URL: keel.DataURL("application/pdf", pdf10MiB()), MediaType: "application/pdf", Filename: "report.pdf"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := benchModel(b, discardServer(b, chatText("A report.").Body, "application/json").URL, openai.APIChat)
			req := pdfRequest(tc.file)
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
		})
	}
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

// TestPDFPeakMemory holds the adapter to the budget of one 10 MiB PDF
// request: at most 40 MiB of heap above the PDF itself.
func TestPDFPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of MiB; skipped with -short")
	}
	m := benchModel(t, discardServer(t, chatText("A report.").Body, "application/json").URL, openai.APIChat)
	req := pdfRequest(keel.FilePart{Data: pdf10MiB(), MediaType: "application/pdf", Filename: "report.pdf"})
	runtime.GC()
	s := startHeapSampler()
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	const budget = 40 << 20
	if peak := s.stop(); peak > budget {
		t.Errorf("Got(peak heap above the PDF) = %.1f MiB; want at most %d MiB", float64(peak)/(1<<20), budget>>20)
	}
}
