package openai_test

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

// filesServer answers POST /v1/files as OpenAI does (the file object,
// expiring when the upload asked) and every other request with answer.
func filesServer(t testing.TB, answer providertest.Reply) *providertest.Server {
	return providertest.NewServerFunc(t, func(r providertest.Recorded, n int) providertest.Reply {
		if r.Path != "/v1/files" {
			return answer
		}
		up, err := providertest.ParseUpload(r)
		if err != nil {
			return providertest.Reply{Status: 400, Body: `{"error":{"message":"` + err.Error() + `","type":"invalid_request_error","param":null,"code":null}}`}
		}
		now := time.Now()
		secs, _ := strconv.ParseInt(up.Fields["expires_after[seconds]"], 10, 64)
		var exp int64
		if secs > 0 {
			exp = now.Unix() + secs
		}
		return providertest.Reply{Body: providertest.OpenAIFileBody("file-"+strconv.Itoa(n), up, now, exp)}
	})
}

func modelOf(t testing.TB, url string, opts openai.Options) keel.Model {
	return newModel(opts)(t, url, providertest.Timeouts{})
}

func storeOf(t testing.TB, m keel.Model) keel.FileStore {
	t.Helper()
	s := keel.FileStoreOf(m)
	if s == nil {
		t.Fatalf("Got(FileStoreOf) = nil; want OpenAI's Files API")
	}
	return s
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestUploadFile(t *testing.T) {
	pdf := bytes.Repeat([]byte("%PDF-1.7 page "), 500)
	for name, part := range map[string]keel.FilePart{
		"bytes":    {Data: pdf, MediaType: "application/pdf", Filename: "big.pdf"},
		"data URL": {URL: keel.DataURL("application/pdf", pdf), Filename: "big.pdf"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := filesServer(t, chatText("ok"))
			pf, err := storeOf(t, modelOf(t, srv.URL(), openai.Options{})).UploadFile(context.Background(), part)
			if err != nil {
				t.Fatalf("Got(UploadFile) = %v; want no error", err)
			}
			r := srv.Requests()[0]
			up, err := providertest.ParseUpload(r)
			if err != nil {
				t.Fatal(err)
			}
			if up.Field != "file" || up.Filename != "big.pdf" || up.ContentType != "application/pdf" || up.SHA256 != digest(pdf) ||
				up.Fields["purpose"] != "user_data" || up.Fields["expires_after[anchor]"] != "created_at" || up.Fields["expires_after[seconds]"] != "2592000" {
				t.Errorf("Got(upload) = %+v; want the PDF as file, purpose user_data, expiring after 30 days", up)
			}
			if r.Header.Get("Authorization") != "Bearer sk-keel-test" || r.Header.Get("Content-Length") != strconv.Itoa(len(r.Body)) {
				t.Errorf("Got(headers) = %v; want the key and the body's length (not chunked)", r.Header)
			}
			if pf.Ref != "file-0" || pf.MediaType != "application/pdf" || time.Until(pf.ExpiresAt) < 29*24*time.Hour {
				t.Errorf("Got(ProviderFile) = %+v; want file-0, a PDF, expiring in 30 days", pf)
			}
		})
	}
}

// TestUploadFileTypes checks which files each API can name by ID: the
// ones it cannot are refused before anything is sent.
func TestUploadFileTypes(t *testing.T) {
	png := keel.FilePart{Data: []byte("\x89PNG"), MediaType: "image/png", Filename: "a.png"}
	tiff := keel.FilePart{Data: []byte("II*"), MediaType: "image/tiff", Filename: "a.tiff"}
	xlsx := keel.FilePart{Data: []byte("PK"), MediaType: providertest.XLSX, Filename: "a.xlsx"}
	wav := keel.FilePart{Data: []byte("RIFF"), MediaType: "audio/wav", Filename: "a.wav"}
	tests := []struct {
		name    string
		opts    openai.Options
		part    keel.FilePart
		purpose string // "" when refused
	}{
		{"chat, an image", openai.Options{}, png, ""},
		{"chat, an xlsx", openai.Options{}, xlsx, ""},
		{"responses, an image", openai.Options{API: openai.APIResponses}, png, "vision"},
		{"responses, a tiff", openai.Options{API: openai.APIResponses}, tiff, ""},
		{"responses, an xlsx", openai.Options{API: openai.APIResponses}, xlsx, "user_data"},
		{"responses, only PDFs, an xlsx", openai.Options{API: openai.APIResponses, OnlyPDFDocuments: true}, xlsx, ""},
		{"responses, audio", openai.Options{API: openai.APIResponses}, wav, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := filesServer(t, chatText("ok"))
			_, err := storeOf(t, modelOf(t, srv.URL(), tt.opts)).UploadFile(context.Background(), tt.part)
			if tt.purpose == "" {
				var ufe *keel.UnsupportedFunctionalityError
				if !errors.As(err, &ufe) || len(srv.Requests()) != 0 {
					t.Errorf("Got(UploadFile) = %v after %d requests; want a refusal before sending", err, len(srv.Requests()))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if up, _ := providertest.ParseUpload(srv.Requests()[0]); up.Fields["purpose"] != tt.purpose {
				t.Errorf("Got(purpose) = %q; want %q", up.Fields["purpose"], tt.purpose)
			}
		})
	}
}

// TestSendByFileID sends uploaded files by their IDs: Chat Completions a
// PDF as file.file_id, the Responses API an image as input_image and a
// document as input_file; no file data either way.
func TestSendByFileID(t *testing.T) {
	pdf := keel.ProviderFile{Ref: "file-pdf1", MediaType: "application/pdf"}.Part("r.pdf")
	img := keel.ProviderFile{Ref: "file-img1", MediaType: "image/png"}.Part("a.png")
	req := func(parts ...keel.Part) *keel.Request {
		return &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: append([]keel.Part{keel.TextPart{Text: "Read"}}, parts...)}}}
	}
	t.Run("chat", func(t *testing.T) {
		srv := providertest.NewServer(t, chatText("ok"))
		if _, err := modelOf(t, srv.URL(), openai.Options{}).Generate(context.Background(), req(pdf)); err != nil {
			t.Fatal(err)
		}
		body := srv.Requests()[0].Body
		if got := chatSentFiles(t, body); len(got) != 1 || got[0].Encoding != "file-id" || got[0].URL != "file-pdf1" || bytes.Contains(body, []byte("file_data")) {
			t.Errorf("Got(sent) = %+v; want file-pdf1 by ID, no file data", got)
		}
	})
	t.Run("responses", func(t *testing.T) {
		srv := providertest.NewServer(t, responsesText("ok"))
		if _, err := modelOf(t, srv.URL(), openai.Options{API: openai.APIResponses}).Generate(context.Background(), req(img, pdf)); err != nil {
			t.Fatal(err)
		}
		got := responsesSentFiles(t, srv.Requests()[0].Body)
		if len(got) != 2 || got[0].URL != "file-img1" || got[1].URL != "file-pdf1" || got[0].Encoding != "file-id" || got[1].Encoding != "file-id" {
			t.Errorf("Got(sent) = %+v; want the image and the PDF by ID", got)
		}
	})
}

// TestCompatibleServerHasNoFileStore checks that a compatible server says
// it has no file store, so that a file too large is handled as refused.
func TestCompatibleServerHasNoFileStore(t *testing.T) {
	m, err := openai.New("llama3.2", openai.Options{ProviderName: "ollama", BaseURL: "http://127.0.0.1:11434/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if s := keel.FileStoreOf(m); s != nil {
		t.Errorf("Got(FileStoreOf(a compatible server)) = %T; want nil", s)
	}
	if _, ok := any(m).(keel.FileStore); ok {
		t.Errorf("Got(a compatible server as keel.FileStore) = true; want false")
	}
}

func TestFileScope(t *testing.T) {
	t.Setenv("OPENAI_ORG_ID", "org-a")
	t.Setenv("OPENAI_PROJECT_ID", "")
	scope := func(key string) string {
		m, err := openai.New("gpt-5", openai.Options{APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return storeOf(t, m).FileScope()
	}
	a := scope("sk-secret-one")
	if strings.Contains(a, "secret") || !strings.HasPrefix(a, "openai https://api.openai.com/v1 key:") || !strings.HasSuffix(a, " org:org-a") {
		t.Errorf("Got(FileScope) = %q; want the provider, base URL, a hash of the key and the organization", a)
	}
	if b := scope("sk-secret-two"); b == a {
		t.Errorf("Got(FileScope of another key) = %q; want another", b)
	}
}

func TestUploadFileErrors(t *testing.T) {
	file := keel.FilePart{Data: []byte("%PDF"), MediaType: "application/pdf", Filename: "a.pdf"}
	srv := providertest.NewServer(t, errorReply(providertest.Unauthorized))
	_, err := storeOf(t, modelOf(t, srv.URL(), openai.Options{})).UploadFile(context.Background(), file)
	var ae *keel.APICallError
	if !errors.As(err, &ae) || ae.StatusCode == 0 || ae.Provider != "openai" {
		t.Errorf("Got(UploadFile answered with an error) = %v; want a *keel.APICallError with the status", err)
	}
	if _, err := storeOf(t, modelOf(t, srv.URL(), openai.Options{})).UploadFile(context.Background(), keel.FilePart{URL: "file-x"}); !errors.Is(err, keel.ErrNotInline) {
		t.Errorf("Got(UploadFile of a reference) = %v; want ErrNotInline", err)
	}
}

// TestUploadFileMemory checks a 25 MiB upload costs at most 2 MiB of heap
// beyond the file.
func TestUploadFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 25 MiB through a local server; skipped with -short")
	}
	var read atomic.Int64
	s := storeOf(t, modelOf(t, discardFilesServer(t, &read).URL, openai.Options{}))
	part := keel.FilePart{Data: make([]byte, 25<<20), MediaType: "application/pdf", Filename: "big.pdf"}
	var err error
	peak := providertest.PeakHeap(func() { _, err = s.UploadFile(context.Background(), part) })
	if err != nil {
		t.Fatal(err)
	}
	if peak > 2<<20 {
		t.Errorf("Got(peak extra heap of a 25 MiB upload) = %.2f MiB; want at most 2 MiB", float64(peak)/(1<<20))
	}
	if read.Load() < 25<<20 {
		t.Errorf("Got(bytes received) = %d; want the whole file", read.Load())
	}
}

// discardFilesServer reads and drops each upload, answering a file
// object, so it holds nothing of what it received.
func discardFilesServer(tb testing.TB, read *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		read.Store(n)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"file-1","object":"file","bytes":1,"created_at":1,"filename":"big.pdf","purpose":"user_data"}`)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkUploadFile25MB measures a 25 MiB upload to POST /v1/files
// through a local server, and its peak heap beyond the file.
func BenchmarkUploadFile25MB(b *testing.B) {
	s := storeOf(b, modelOf(b, discardFilesServer(b, new(atomic.Int64)).URL, openai.Options{}))
	part := keel.FilePart{Data: make([]byte, 25<<20), MediaType: "application/pdf", Filename: "big.pdf"}
	var peak uint64
	var err error
	b.SetBytes(25 << 20)
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
