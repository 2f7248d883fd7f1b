package google_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
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
	req := providertest.PDFRequest(keel.FilePart{Data: providertest.PDF10MiB(), MediaType: "application/pdf", Filename: "report.pdf"})
	providertest.BenchmarkPeakHeap(b, newModel(b, discardServer(b, nil).URL), req)
}

// BenchmarkGenerate10MiBPDFDataURL is BenchmarkGenerate10MiBPDF with the
// PDF given as a data: URL, whose base64 is sent as it is.
func BenchmarkGenerate10MiBPDFDataURL(b *testing.B) {
	req := providertest.PDFRequest(keel.FilePart{URL: keel.DataURL("application/pdf", providertest.PDF10MiB()), MediaType: "application/pdf", Filename: "report.pdf"})
	providertest.BenchmarkPeakHeap(b, newModel(b, discardServer(b, nil).URL), req)
}
