package inline_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

// post builds the request an SDK would: a JSON body holding v.
func post(t *testing.T, v any) *http.Request {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", "http://example.com/v1/x", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func readBody(t *testing.T, rc io.ReadCloser) []byte {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func patterned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*37 + n)
	}
	return b
}

// TestRequestSplicesEveryFile checks that each placeholder, as a string
// and as bytes the encoder writes as base64, comes out as its file's
// standard base64 in a body that decodes to what the SDK meant, for every
// form of content and sizes around the base64 group.
func TestRequestSplicesEveryFile(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 47, 48, 49, 4096, 100_003} {
		data := patterned(n)
		parts := []keel.FilePart{
			{Data: data, MediaType: "application/pdf"},
			{URL: keel.DataURL("image/png", data)},
			{URL: "data:image/png;base64," + base64.RawURLEncoding.EncodeToString(data)}, // decoded, sent standard
		}
		fs := inline.New()
		type wire struct {
			Texts []string `json:"texts"`
			Blobs [][]byte `json:"blobs"`
		}
		var w wire
		for _, p := range parts {
			s, err := fs.Text(p)
			if err != nil {
				t.Fatalf("Got(Text(%d bytes)) = %v; want a placeholder", n, err)
			}
			w.Texts = append(w.Texts, "data:application/pdf;base64,"+s)
			b, err := fs.Bytes(p)
			if err != nil {
				t.Fatalf("Got(Bytes(%d bytes)) = %v; want a placeholder", n, err)
			}
			w.Blobs = append(w.Blobs, b)
		}
		if fs.Len() != 2*len(parts) {
			t.Fatalf("Got(Len) = %d; want %d", fs.Len(), 2*len(parts))
		}
		req, err := fs.Request(post(t, w))
		if err != nil {
			t.Fatalf("Got(Request) = %v; want the completed request", err)
		}
		first := readBody(t, req.Body)
		if int64(len(first)) != req.ContentLength {
			t.Errorf("Got(body of %d bytes) = ContentLength %d; want %d", n, req.ContentLength, len(first))
		}
		again, _ := req.GetBody()
		if !bytes.Equal(readBody(t, again), first) {
			t.Errorf("Got(GetBody for %d bytes) = another body; want the same", n)
		}
		var got wire
		if err := json.Unmarshal(first, &got); err != nil {
			t.Fatalf("Got(body of %d bytes) = %v; want JSON", n, err)
		}
		want := base64.StdEncoding.EncodeToString(data)
		for i := range parts {
			if got.Texts[i] != "data:application/pdf;base64,"+want {
				t.Errorf("Got(text %d of %d bytes) = %.60q; want the data URL of the file", i, n, got.Texts[i])
			}
			if !bytes.Equal(got.Blobs[i], data) {
				t.Errorf("Got(blob %d of %d bytes) = %d bytes; want the file", i, n, len(got.Blobs[i]))
			}
		}
	}
}

// TestRequestReadsInAnySize checks the body against the standard library
// whatever the reader's buffer, down to one byte at a time.
func TestRequestReadsInAnySize(t *testing.T) {
	for n := range 40 {
		data := patterned(n)
		fs := inline.New()
		s, err := fs.Text(keel.FilePart{Data: data})
		if err != nil {
			t.Fatal(err)
		}
		req, err := fs.Request(post(t, map[string]string{"data": s}))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"data":"` + base64.StdEncoding.EncodeToString(data) + `"}`
		if err := iotest.TestReader(req.Body, []byte(want)); err != nil {
			t.Errorf("Got(body of %d bytes) = %v; want %s", n, err, want)
		}
		for _, size := range []int{1, 2, 3, 5, 7} {
			body, _ := req.GetBody()
			var got strings.Builder
			if _, err := io.CopyBuffer(&got, struct{ io.Reader }{body}, make([]byte, size)); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("Got(body of %d bytes read %d at a time) = %s; want %s", n, size, got.String(), want)
			}
		}
	}
}

// TestStandardBase64PassesAsIs checks that a data: URL's standard base64
// is sent exactly as given, padding bits and all, and that anything else
// is decoded and sent standard.
func TestStandardBase64PassesAsIs(t *testing.T) {
	tests := []struct{ url, want string }{
		{"data:text/plain;base64,QR==", "QR=="},
		{"data:text/plain;BASE64,QQ==", "QQ=="},
		{"data:text/plain;base64,QQ", "QQ=="},
		{"data:text/plain,hi", base64.StdEncoding.EncodeToString([]byte("hi"))},
	}
	for _, tc := range tests {
		fs := inline.New()
		s, err := fs.Text(keel.FilePart{URL: tc.url})
		if err != nil {
			t.Fatalf("Got(Text(%q)) = %v; want a placeholder", tc.url, err)
		}
		req, err := fs.Request(post(t, []string{s}))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(readBody(t, req.Body)); got != `["`+tc.want+`"]` {
			t.Errorf("Got(body for %q) = %s; want [%q]", tc.url, got, tc.want)
		}
	}
}

func TestUndecodableContent(t *testing.T) {
	for _, u := range []string{"data:application/pdf;base64,@@@@", "data:application/pdf;base64,QQ=A", "data:application/pdf;base64"} {
		fs := inline.New()
		if _, err := fs.Text(keel.FilePart{URL: u}); !errors.Is(err, keel.ErrUndecodableData) {
			t.Errorf("Got(Text(%q)) = %v; want keel.ErrUndecodableData", u, err)
		}
		if fs.Len() != 0 {
			t.Errorf("Got(Len after %q) = %d; want 0", u, fs.Len())
		}
	}
}

// TestMissingPlaceholder checks that a body which lost a file is an error,
// never a request sent without it.
func TestMissingPlaceholder(t *testing.T) {
	fs := inline.New()
	if _, err := fs.Text(keel.FilePart{Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Request(post(t, map[string]string{"data": "something else"})); !errors.Is(err, inline.ErrBody) {
		t.Errorf("Got(Request) = %v; want inline.ErrBody", err)
	}
}

// TestPlaceholdersAreDistinct checks that no placeholder is a prefix of
// another, so the eleventh file is never taken for the second.
func TestPlaceholdersAreDistinct(t *testing.T) {
	fs := inline.New()
	var texts []string
	for i := range 12 {
		s, err := fs.Text(keel.FilePart{Data: []byte{byte(i)}})
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
	}
	for i, a := range texts {
		for j, b := range texts {
			if i != j && strings.HasPrefix(b, a) {
				t.Errorf("Got(placeholder %d) = %q, a prefix of %d (%q); want distinct", i, a, j, b)
			}
		}
	}
	if other := inline.New(); func() string { s, _ := other.Text(keel.FilePart{Data: []byte{0}}); return s }() == texts[0] {
		t.Errorf("Got(first placeholder of two requests) = the same; want a nonce per request")
	}
}

func TestNoFilesLeavesTheRequest(t *testing.T) {
	req := post(t, "hello")
	got, err := inline.New().Request(req)
	if err != nil || got != req {
		t.Errorf("Got(Request with no files) = %p, %v; want the request itself", got, err)
	}
}

func TestMediaType(t *testing.T) {
	tests := []struct {
		part        keel.FilePart
		media, give string
	}{
		{keel.FilePart{MediaType: "Text/CSV; charset=utf-8", Data: []byte("a")}, "text/csv", "Text/CSV; charset=utf-8"},
		{keel.FilePart{URL: "data:image/PNG;base64,QQ=="}, "image/png", "image/PNG"},
		{keel.FilePart{URL: "data:text/plain;charset=utf-8,hi"}, "text/plain", "text/plain;charset=utf-8"},
		{keel.FilePart{MediaType: "application/pdf", URL: "data:image/png;base64,QQ=="}, "application/pdf", "application/pdf"},
		{keel.FilePart{Data: []byte("?")}, "", "application/octet-stream"},
		{keel.FilePart{URL: "https://example.com/a"}, "", "application/octet-stream"},
	}
	for _, tc := range tests {
		if got := inline.MediaType(tc.part); got != tc.media {
			t.Errorf("Got(MediaType(%+v)) = %q; want %q", tc.part, got, tc.media)
		}
		if got := inline.Given(tc.part); got != tc.give {
			t.Errorf("Got(Given(%+v)) = %q; want %q", tc.part, got, tc.give)
		}
	}
	if inline.OrOctetStream("") != "application/octet-stream" || inline.OrOctetStream("image/png") != "image/png" {
		t.Error("Got(OrOctetStream) wrong; want the type, or application/octet-stream for none")
	}
}
