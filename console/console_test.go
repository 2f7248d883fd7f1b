package console_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/keel-go/keel/console"
)

func newHandler(t *testing.T) *console.Handler {
	t.Helper()
	h, err := console.New()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func serve(h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestPagePaths(t *testing.T) {
	h := newHandler(t)
	cases := []struct {
		path   string
		status int
	}{
		{"/", 200},
		{"/threads", 200},
		{"/threads/t-1", 200},
		{"/agents/assistant/chat", 200},
		{"/sandbox", 200},
		{"/threadsx", 404},
		{"/favicon.ico", 404},
		{"/assets/000000000000/app.js", 404},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			w := serve(h, "GET", c.path)
			if w.Code != c.status {
				t.Fatalf("Got(GET %s) = %d; want %d", c.path, w.Code, c.status)
			}
			if w.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("Got(nosniff on %s) = %q; want it", c.path, w.Header().Get("X-Content-Type-Options"))
			}
			if c.status != 200 {
				return
			}
			hdr := w.Header()
			if hdr.Get("Content-Type") != "text/html; charset=utf-8" || hdr.Get("Cache-Control") != "no-cache" || hdr.Get("ETag") == "" ||
				!strings.Contains(hdr.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("Got(headers of %s) = %v; want html, revalidated, an ETag and the script policy", c.path, hdr)
			}
			if !strings.Contains(w.Body.String(), h.AssetPrefix()+"app.js") {
				t.Errorf("Got(page) without %sapp.js; want the versioned assets", h.AssetPrefix())
			}
		})
	}
}

func TestAssetsAreCompressedAndCached(t *testing.T) {
	h := newHandler(t)
	for _, name := range []string{"app.js", "api.js", "thread.js", "markdown.js", "app.css"} {
		t.Run(name, func(t *testing.T) {
			plain := serve(h, "GET", h.AssetPrefix()+name)
			gz := serve(h, "GET", h.AssetPrefix()+name, "Accept-Encoding", "br, gzip")
			if plain.Code != 200 || gz.Code != 200 || plain.Header().Get("Content-Encoding") != "" || gz.Header().Get("Content-Encoding") != "gzip" {
				t.Fatalf("Got(%s) = %d %q / %d %q; want plain and gzip", name, plain.Code, plain.Header().Get("Content-Encoding"), gz.Code, gz.Header().Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(gz.Body)
			if err != nil {
				t.Fatal(err)
			}
			unzipped, _ := io.ReadAll(zr)
			if !bytes.Equal(unzipped, plain.Body.Bytes()) || gz.Body.Len() >= plain.Body.Len() {
				t.Errorf("Got(gzip of %s) = %d bytes unzipping to the plain %v; want smaller, same content", name, gz.Body.Len(), bytes.Equal(unzipped, plain.Body.Bytes()))
			}
			if cc := gz.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("Got(Cache-Control of %s) = %q; want immutable", name, cc)
			}
			if gz.Header().Get("Vary") != "Accept-Encoding" {
				t.Errorf("Got(Vary of %s) = %q; want Accept-Encoding", name, gz.Header().Get("Vary"))
			}
			again := serve(h, "GET", h.AssetPrefix()+name, "If-None-Match", gz.Header().Get("ETag"))
			if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("Got(%s with its ETag) = %d, %d bytes; want 304 and nothing", name, again.Code, again.Body.Len())
			}
			refused := serve(h, "GET", h.AssetPrefix()+name, "Accept-Encoding", "gzip;q=0")
			if refused.Header().Get("Content-Encoding") != "" {
				t.Errorf("Got(%s for gzip;q=0) = %q; want plain", name, refused.Header().Get("Content-Encoding"))
			}
		})
	}
}

func TestMethods(t *testing.T) {
	h := newHandler(t)
	head := serve(h, "HEAD", "/")
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") == "" {
		t.Errorf("Got(HEAD /) = %d, %d bytes; want 200, headers only", head.Code, head.Body.Len())
	}
	if w := serve(h, "POST", "/"); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("Got(POST /) = %d %v; want 405 with Allow", w.Code, w.Header())
	}
}

// Every asset the page loads, gzipped as served, fits in the page budget
// of 100 KiB with room for the API's answers.
func TestPageWeight(t *testing.T) {
	h := newHandler(t)
	page := serve(h, "GET", "/", "Accept-Encoding", "gzip")
	total := page.Body.Len()
	src, _ := io.ReadAll(gzipReader(t, page.Body))
	seen := map[string]bool{}
	queue := regexp.MustCompile(`(?:href|src)="`+regexp.QuoteMeta(h.AssetPrefix())+`([^"]+)"`).FindAllStringSubmatch(string(src), -1)
	imports := regexp.MustCompile(`from "\./([^"]+)"`)
	var names []string
	for _, m := range queue {
		names = append(names, m[1])
	}
	for len(names) > 0 {
		name := names[0]
		names = names[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		w := serve(h, "GET", h.AssetPrefix()+name, "Accept-Encoding", "gzip")
		if w.Code != 200 {
			t.Fatalf("Got(GET %s) = %d; want the asset", name, w.Code)
		}
		total += w.Body.Len()
		body := w.Body.Bytes()
		if w.Header().Get("Content-Encoding") == "gzip" {
			body, _ = io.ReadAll(gzipReader(t, w.Body))
		}
		for _, m := range imports.FindAllStringSubmatch(string(body), -1) {
			names = append(names, m[1])
		}
	}
	t.Logf("the page and its %d assets: %d bytes gzipped", len(seen), total)
	if len(seen) < 8 || total > 60<<10 {
		t.Errorf("Got(page weight) = %d bytes in %d assets; want every module found, and at most 60 KiB, leaving the API its share of 100 KiB", total, len(seen))
	}
}

func gzipReader(t *testing.T, r io.Reader) io.Reader {
	t.Helper()
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	return zr
}
