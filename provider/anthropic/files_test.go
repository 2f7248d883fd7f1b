package anthropic_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/providertest"
)

// filesServer answers POST /v1/files as the Files API does, and every
// other request with a text answer.
func filesServer(t testing.TB) *providertest.Server {
	return providertest.NewServerFunc(t, func(r providertest.Recorded, n int) providertest.Reply {
		if r.Path != "/v1/files" {
			return providertest.Reply{Body: textBody("ok")}
		}
		up, err := providertest.ParseUpload(r)
		if err != nil {
			return providertest.Reply{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"` + err.Error() + `"}}`}
		}
		return providertest.Reply{Body: providertest.AnthropicFileBody("file_011CN"+strconv.Itoa(n), up, time.Now())}
	})
}

func fileStoreOf(t testing.TB, m keel.Model) keel.FileStore {
	t.Helper()
	s := keel.FileStoreOf(m)
	if s == nil {
		t.Fatal("Got(FileStoreOf) = nil; want the Files API")
	}
	return s
}

func TestUploadFile(t *testing.T) {
	pdf := bytes.Repeat([]byte("%PDF-1.7 page "), 500)
	srv := filesServer(t)
	before := time.Now()
	pf, err := fileStoreOf(t, newModel(t, srv.URL())).UploadFile(context.Background(), keel.FilePart{URL: keel.DataURL("application/pdf", pdf), Filename: "big.pdf"})
	if err != nil {
		t.Fatalf("Got(UploadFile) = %v; want no error", err)
	}
	r := srv.Requests()[0]
	up, err := providertest.ParseUpload(r)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pdf)
	if up.Field != "file" || up.Filename != "big.pdf" || up.ContentType != "application/pdf" || up.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("Got(upload) = %+v; want the PDF as the form's file", up)
	}
	if r.Header.Get("Anthropic-Beta") != anthropic.FilesBeta || r.Header.Get("Authorization") != "Bearer sk-ant-test" || r.Header.Get("Content-Length") != strconv.Itoa(len(r.Body)) {
		t.Errorf("Got(headers) = %v; want the beta header, the key and the body's length", r.Header)
	}
	if pf.Ref != "file_011CN0" || pf.MediaType != "application/pdf" || pf.ExpiresAt.Before(before.Add(29*24*time.Hour)) {
		t.Errorf("Got(ProviderFile) = %+v; want the file ID, a PDF, counted on for 30 days", pf)
	}
}

func TestUploadFileRefusesTypes(t *testing.T) {
	srv := filesServer(t)
	_, err := fileStoreOf(t, newModel(t, srv.URL())).UploadFile(context.Background(), keel.FilePart{Data: []byte("PK"), MediaType: providertest.XLSX})
	var ufe *keel.UnsupportedFunctionalityError
	if !errors.As(err, &ufe) || len(srv.Requests()) != 0 {
		t.Errorf("Got(UploadFile of an xlsx) = %v after %d requests; want a refusal before sending", err, len(srv.Requests()))
	}
}

// TestSendByFileID checks that files named by ID go as file sources with
// the Files API's beta header, and that a request without one goes
// without it.
func TestSendByFileID(t *testing.T) {
	pdf := keel.ProviderFile{Ref: "file_011pdf", MediaType: "application/pdf"}.Part("r.pdf")
	img := keel.ProviderFile{Ref: "file_011img", MediaType: "image/png"}.Part("a.png")
	srv := filesServer(t)
	m := newModel(t, srv.URL())
	req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Read"}, img, pdf}}},
		Headers: map[string]string{"X-Trace": "1"}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := providertest.Collect(t, m.Stream(context.Background(), req)); got.Err != nil {
		t.Fatal(got.Err)
	}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, r := range reqs[:2] {
		files := sentFiles(t, r.Body)
		if len(files) != 2 || files[0].Encoding != "file-id" || files[0].URL != "file_011img" || files[1].URL != "file_011pdf" ||
			!strings.Contains(r.Header.Get("Anthropic-Beta"), anthropic.FilesBeta) || r.Header.Get("X-Trace") != "1" {
			t.Errorf("Got(request %d) = files %+v, beta %q; want both by ID with the Files API's beta header", i, files, r.Header.Get("Anthropic-Beta"))
		}
	}
	if h := reqs[2].Header.Get("Anthropic-Beta"); h != "" {
		t.Errorf("Got(beta header of a request without file IDs) = %q; want none", h)
	}
}

func TestFileScope(t *testing.T) {
	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "sk-ant-secret", BaseURL: "http://127.0.0.1:9/"})
	if err != nil {
		t.Fatal(err)
	}
	s := fileStoreOf(t, m)
	if sc := s.FileScope(); strings.Contains(sc, "secret") || !strings.HasPrefix(sc, "anthropic http://127.0.0.1:9 key:") {
		t.Errorf("Got(FileScope) = %q; want the provider, base URL and a hash of the key", sc)
	}
	if s.InlineLimit() != 32_000_000 {
		t.Errorf("Got(InlineLimit) = %d; want 32 MB", s.InlineLimit())
	}
}

// TestUploadFileMemory checks a 25 MiB upload costs at most 2 MiB of heap
// beyond the file.
func TestUploadFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 25 MiB through a local server; skipped with -short")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"file_011big","type":"file","filename":"big.pdf","mime_type":"application/pdf","size_bytes":1,"created_at":"2026-01-01T00:00:00Z"}`)
	}))
	t.Cleanup(srv.Close)
	s := fileStoreOf(t, newModel(t, srv.URL))
	part := keel.FilePart{Data: make([]byte, 25<<20), MediaType: "application/pdf", Filename: "big.pdf"}
	var err error
	peak := providertest.PeakHeap(func() { _, err = s.UploadFile(context.Background(), part) })
	if err != nil {
		t.Fatal(err)
	}
	if peak > 2<<20 {
		t.Errorf("Got(peak extra heap of a 25 MiB upload) = %.2f MiB; want at most 2 MiB", float64(peak)/(1<<20))
	}
}
