package openai_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
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

// BenchmarkGenerate10MiBPDF measures one Chat Completions request carrying
// a 10 MiB PDF as bytes: B/op, and the peak of heap memory above what was
// in use before the call (the PDF itself excluded), sampled while the call
// runs.
func BenchmarkGenerate10MiBPDF(b *testing.B) {
	for _, tc := range []struct {
		name string
		file keel.FilePart
	}{
		{"bytes", keel.FilePart{Data: providertest.PDF10MiB(), MediaType: "application/pdf", Filename: "report.pdf"}},
		{"data-url", keel.FilePart{URL: keel.DataURL("application/pdf", providertest.PDF10MiB()), MediaType: "application/pdf", Filename: "report.pdf"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := benchModel(b, discardServer(b, chatText("A report.").Body, "application/json").URL, openai.APIChat)
			providertest.BenchmarkPeakHeap(b, m, providertest.PDFRequest(tc.file))
		})
	}
}

// TestPDFPeakMemory holds the adapter to the budget of one 10 MiB PDF
// request: at most 40 MiB of heap above the PDF itself.
func TestPDFPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of MiB; skipped with -short")
	}
	m := benchModel(t, discardServer(t, chatText("A report.").Body, "application/json").URL, openai.APIChat)
	req := providertest.PDFRequest(keel.FilePart{Data: providertest.PDF10MiB(), MediaType: "application/pdf", Filename: "report.pdf"})
	var err error
	peak := providertest.PeakHeap(func() { _, err = m.Generate(context.Background(), req) })
	if err != nil {
		t.Fatal(err)
	}
	const budget = 40 << 20
	if peak > budget {
		t.Errorf("Got(peak heap above the PDF) = %.1f MiB; want at most %d MiB", float64(peak)/(1<<20), budget>>20)
	}
}
