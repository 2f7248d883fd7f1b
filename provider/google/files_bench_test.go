package google_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// file25MB is the size of the upload the memory figures are for.
const file25MB = 25 << 20

// filesDiscardServer speaks just enough of Gemini's Files API for an
// upload: the start gives an upload URL; the upload's bytes are read and
// dropped, so the server holds nothing of them.
func filesDiscardServer(tb testing.TB) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Goog-Upload-Command") == "start" {
			w.Header().Set("X-Goog-Upload-URL", srv.URL+"/upload/v1beta/files?upload_id=1&upload_protocol=resumable")
			_, _ = io.WriteString(w, "{}")
			return
		}
		w.Header().Set("X-Goog-Upload-Status", "final")
		_, _ = io.WriteString(w, `{"file":{"name":"files/f1","mimeType":"application/pdf","uri":"`+srv.URL+
			`/v1beta/files/f1","expirationTime":"2099-01-01T00:00:00Z","state":"ACTIVE"}}`)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// TestUploadFileMemory checks a 25 MB upload costs at most 2 MiB of heap
// beyond the file: it is read straight into the connection, as bytes or
// from a data: URL's base64.
func TestUploadFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 25 MiB through a local server; skipped with -short")
	}
	s := store(t, newModel(t, filesDiscardServer(t).URL))
	pdf := make([]byte, file25MB)
	for name, part := range map[string]keel.FilePart{
		"bytes":    {Data: pdf, MediaType: "application/pdf", Filename: "big.pdf"},
		"data URL": {URL: keel.DataURL("application/pdf", pdf), Filename: "big.pdf"},
	} {
		var err error
		peak := providertest.PeakHeap(func() { _, err = s.UploadFile(context.Background(), part) })
		if err != nil {
			t.Fatal(err)
		}
		if limit := uint64(2 << 20); peak > limit {
			t.Errorf("Got(peak extra heap of a 25 MiB upload, %s) = %.2f MiB; want at most 2 MiB", name, float64(peak)/(1<<20))
		}
	}
}

// BenchmarkUploadFile25MB measures a 25 MiB upload to the Files API
// through a local server, and its peak heap beyond the file.
func BenchmarkUploadFile25MB(b *testing.B) {
	s := store(b, newModel(b, filesDiscardServer(b).URL))
	part := keel.FilePart{Data: make([]byte, file25MB), MediaType: "application/pdf", Filename: "big.pdf"}
	var peak uint64
	var err error
	b.SetBytes(file25MB)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		peak = max(peak, providertest.PeakHeap(func() {
			b.StartTimer()
			_, err = s.UploadFile(context.Background(), part)
			b.StopTimer()
		}))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
