package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
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

// BenchmarkGenerate10MiBPDF measures one request carrying a 10 MiB PDF as
// bytes: B/op, and the peak of heap memory above what was in use before
// the call (the PDF itself excluded), sampled while the call runs.
func BenchmarkGenerate10MiBPDF(b *testing.B) {
	benchmarkPDF(b, keel.FilePart{Data: providertest.PDF10MiB(), MediaType: "application/pdf", Filename: "report.pdf"})
}

// BenchmarkGenerate10MiBPDFDataURL is the same PDF given as a data: URL,
// whose base64 the adapter passes on without decoding it.
func BenchmarkGenerate10MiBPDFDataURL(b *testing.B) {
	benchmarkPDF(b, keel.FilePart{URL: keel.DataURL("application/pdf", providertest.PDF10MiB()), MediaType: "application/pdf", Filename: "report.pdf"})
}

func benchmarkPDF(b *testing.B, file keel.FilePart) {
	providertest.BenchmarkPeakHeap(b, newModel(b, discardServer(b).URL), providertest.PDFRequest(file))
}
