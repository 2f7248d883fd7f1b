package google_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// store returns m's file store, failing the test when it has none.
func store(t testing.TB, m keel.Model) keel.FileStore {
	t.Helper()
	s := keel.FileStoreOf(m)
	if s == nil {
		t.Fatalf("Got(FileStoreOf(%T)) = nil; want Gemini's Files API", m)
	}
	return s
}

func TestUploadFile(t *testing.T) {
	pdf := bytes.Repeat([]byte("%PDF-1.7 page "), 1000)
	tests := []struct {
		name string
		part keel.FilePart
	}{
		{"bytes", keel.FilePart{Data: pdf, MediaType: "application/pdf", Filename: "big.pdf"}},
		{"data URL", keel.FilePart{URL: keel.DataURL("application/pdf", pdf), Filename: "big.pdf"}},
		{"from base64", fromBase64(t, pdf)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := googletest.NewServer(t, googletest.Options{FileTTL: time.Hour})
			m := newModel(t, srv.URL())
			before := time.Now()
			pf, err := store(t, m).UploadFile(context.Background(), tt.part)
			if err != nil {
				t.Fatalf("Got(UploadFile) = %v; want no error", err)
			}
			ups := srv.Uploads()
			if len(ups) != 1 || ups[0].SHA256 != sum(pdf) || ups[0].Size != int64(len(pdf)) || ups[0].MIMEType != "application/pdf" ||
				ups[0].DisplayName != "big.pdf" || ups[0].Chunks != 1 {
				t.Fatalf("Got(uploads) = %+v; want the PDF's bytes, type and name, in one request", ups)
			}
			if pf.Ref != ups[0].URI || !strings.HasPrefix(pf.Ref, srv.URL()+"/v1beta/files/") || pf.MediaType != "application/pdf" ||
				pf.ExpiresAt.Before(before.Add(time.Hour-time.Second)) || pf.ExpiresAt.After(time.Now().Add(time.Hour)) {
				t.Errorf("Got(ProviderFile) = %+v; want the file's URI, type and expirationTime an hour away", pf)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || reqs[0].Header.Get("X-Goog-Upload-Command") != "start" || reqs[1].Header.Get("X-Goog-Upload-Command") != "upload, finalize" ||
				reqs[1].Header.Get("X-Goog-Api-Key") != "test-key" || !bytes.Equal(reqs[1].Body, pdf) {
				t.Errorf("Got(requests) = %d, commands %q; want start, then upload and finalize with the key", len(reqs), commands(reqs))
			}
		})
	}
}

func fromBase64(t *testing.T, data []byte) keel.FilePart {
	t.Helper()
	f, err := keel.FileFromBase64(keel.DataURL("", data)[len("data:;base64,"):], "application/pdf", "big.pdf")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func commands(reqs []googletest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Header.Get("X-Goog-Upload-Command"))
	}
	return out
}

// TestFileByReference sends an uploaded file by its URI: fileData, no
// inline data; and reads Gemini's 403 for a file it no longer keeps as
// FaultFileGone.
func TestFileByReference(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	m := newModel(t, srv.URL())
	pdf := []byte("%PDF-1.7 a report")
	pf, err := store(t, m).UploadFile(context.Background(), keel.FilePart{Data: pdf, MediaType: "application/pdf", Filename: "r.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Summarise"}, pf.Part("r.pdf")}}}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("Got(Generate by reference) = %v; want no error", err)
	}
	body, err := srv.Requests()[2].Decode()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := body.Files()
	if len(files) != 1 || files[0].Encoding != "url" || files[0].URL != pf.Ref || files[0].MediaType != "application/pdf" || len(body.InlineMediaTypes()) != 0 {
		t.Errorf("Got(files sent) = %+v; want one fileData naming %s, no inline data", files, pf.Ref)
	}
	if !srv.DeleteFile(pf.Ref) {
		t.Fatal("DeleteFile found no file")
	}
	for name, err := range map[string]error{
		"generate": func() error { _, err := m.Generate(context.Background(), req); return err }(),
		"stream":   providertest.Collect(t, m.Stream(context.Background(), req)).Err,
	} {
		var ae *keel.APICallError
		if !errors.As(err, &ae) || ae.StatusCode != 403 || ae.Fault != keel.FaultFileGone || ae.Retryable {
			t.Errorf("Got(%s naming a deleted file) = %v; want a 403 typed FaultFileGone, not retryable", name, err)
		}
	}
}

// TestUploadFileProtocol checks the protocol's edges: a file still
// processing is waited for; the upload URL is used on the base URL's host
// only (the key goes with it); error answers are typed.
func TestUploadFileProtocol(t *testing.T) {
	file := keel.FilePart{Data: []byte("%PDF-1.7"), MediaType: "application/pdf", Filename: "a.pdf"}
	t.Run("processing", func(t *testing.T) {
		srv := googletest.NewServer(t, googletest.Options{ProcessingPolls: 2})
		pf, err := store(t, newModel(t, srv.URL())).UploadFile(context.Background(), file)
		if err != nil || pf.Ref == "" {
			t.Fatalf("Got(UploadFile of a file processed later) = %+v, %v; want it once ACTIVE", pf, err)
		}
		if n := len(srv.Requests()); n != 4 {
			t.Errorf("Got(requests) = %d; want 4: start, upload (PROCESSING), a read (PROCESSING), a read (ACTIVE)", n)
		}
	})
	t.Run("upload URL of another host", func(t *testing.T) {
		var srv *googletest.Server
		srv = googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
			if n != 0 {
				return providertest.Reply{}, false
			}
			h := http.Header{}
			h.Set("X-Goog-Upload-URL", "https://evil.example/upload/v1beta/files?upload_id=1&upload_protocol=resumable")
			return providertest.Reply{Header: h, Body: "{}"}, true
		}})
		// The fake server has no upload 1 started (Respond answered the
		// start): a 404 from it shows the chunk came here, not to evil.
		_, err := store(t, newModel(t, srv.URL())).UploadFile(context.Background(), file)
		var ae *keel.APICallError
		if !errors.As(err, &ae) || ae.StatusCode != 404 || len(srv.Requests()) != 2 || !strings.HasPrefix(ae.URL, srv.URL()) {
			t.Errorf("Got(UploadFile) = %v after %d requests; want the chunk sent to the base URL's host", err, len(srv.Requests()))
		}
	})
	t.Run("errors", func(t *testing.T) {
		tests := []struct {
			name   string
			reply  providertest.Reply
			status int
			fault  keel.Fault
		}{
			{"bad key", providertest.GeminiBadKey.Reply, 400, keel.FaultNotFile},
			{"too large", providertest.Reply{Status: 413, Body: googletest.ErrorBody(413, "INVALID_ARGUMENT", "File size exceeds the 2 GB limit.")}, 413, keel.FaultFileSize},
			{"internal", providertest.GeminiInternal.Reply, 500, keel.FaultUnknown},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				srv := googletest.NewServer(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) { return tt.reply, true }})
				_, err := store(t, newModel(t, srv.URL())).UploadFile(context.Background(), file)
				var ae *keel.APICallError
				if !errors.As(err, &ae) || ae.StatusCode != tt.status || ae.Fault != tt.fault || ae.Body != tt.reply.Body {
					t.Errorf("Got(UploadFile) = %v; want a %d typed %q with the body", err, tt.status, tt.fault)
				}
			})
		}
	})
	t.Run("not inline", func(t *testing.T) {
		_, err := store(t, newModel(t, "http://127.0.0.1:1")).UploadFile(context.Background(), keel.FilePart{URL: "https://example.com/a.pdf"})
		if !errors.Is(err, keel.ErrNotInline) {
			t.Errorf("Got(UploadFile of a link) = %v; want ErrNotInline", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		srv := googletest.NewServer(t, googletest.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := store(t, newModel(t, srv.URL())).UploadFile(ctx, file); !errors.Is(err, context.Canceled) {
			t.Errorf("Got(UploadFile with a cancelled context) = %v; want context.Canceled", err)
		}
	})
}

// TestFileScope checks that a reference's scope tells base URLs and keys
// apart without holding the key.
func TestFileScope(t *testing.T) {
	scope := func(key, base string) string {
		m, err := google.New(testModel, google.Options{APIKey: key, BaseURL: base})
		if err != nil {
			t.Fatal(err)
		}
		return store(t, m).FileScope()
	}
	a := scope("AIza-secret-one", "http://127.0.0.1:9")
	if strings.Contains(a, "secret") || !strings.HasPrefix(a, "google http://127.0.0.1:9 key:") {
		t.Errorf("Got(FileScope) = %q; want the provider, base URL and a hash of the key, never the key", a)
	}
	if b := scope("AIza-secret-two", "http://127.0.0.1:9"); b == a {
		t.Errorf("Got(FileScope of another key) = %q; want another scope", b)
	}
	if c := scope("AIza-secret-one", "http://127.0.0.1:9/"); c != a {
		t.Errorf("Got(FileScope with a trailing slash) = %q; want %q", c, a)
	}
	if got := store(t, newModel(t, "http://127.0.0.1:9")).InlineLimit(); got != 20971520 {
		t.Errorf("Got(InlineLimit) = %d; want 20971520, Gemini's", got)
	}
}

// TestFakeFilesAPIWithSDK checks googletest's Files API against the
// SDK's own upload (8 MiB chunks, the last with finalize), so that the
// fake speaks the protocol the SDK does.
func TestFakeFilesAPIWithSDK(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "test-key", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte{7}, 9<<20)
	f, err := client.Files.Upload(context.Background(), bytes.NewReader(data), &genai.UploadFileConfig{MIMEType: "application/pdf", DisplayName: "nine.pdf"})
	if err != nil {
		t.Fatalf("Got(SDK Files.Upload) = %v; want no error", err)
	}
	ups := srv.Uploads()
	if len(ups) != 1 || ups[0].Chunks != 2 || ups[0].SHA256 != sum(data) || f.URI != ups[0].URI || f.State != genai.FileStateActive ||
		f.ExpirationTime.IsZero() {
		t.Errorf("Got(SDK upload) = %+v, server %+v; want 2 chunks, the bytes, an ACTIVE file with its expiry", f, ups)
	}
	got, err := client.Files.Get(context.Background(), f.Name, nil)
	if err != nil || got.URI != f.URI {
		t.Errorf("Got(SDK Files.Get) = %+v, %v; want the file", got, err)
	}
}
