package console

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/keel-go/keel/internal/httpgzip"
)

//go:embed assets
var assets embed.FS

// assetsPlaceholder is replaced, in index.html, by the versioned asset
// prefix, such as "/assets/3f2a9c1d0b7e/".
const assetsPlaceholder = "{{ASSETS}}/"

// securityPolicy lets the page run its own scripts and styles only: no
// inline script, nothing from another origin, no plugin, no frame. It is
// a second wall behind the page's rule of never turning model or user
// text into markup.
const securityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// file is one asset as served: its bytes, gzipped once at start, and its
// validator.
type file struct {
	body, gz    []byte
	contentType string
	etag        string
}

// Handler serves the console. It is safe for concurrent use.
type Handler struct {
	index  file
	prefix string // "/assets/<version>/"
	files  map[string]file
}

// New returns the console's handler. Mount it at "/" next to the API (see
// [github.com/keel-go/keel/server.Config].Console); it answers the page's
// own paths and its assets, and 404 for anything else.
func New() (*Handler, error) {
	h := &Handler{files: map[string]file{}}
	all := sha256.New()
	var index []byte
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "assets/")
		fmt.Fprintf(all, "%s\x00%d\x00", name, len(b))
		all.Write(b)
		if name == "index.html" {
			index = b
			return nil
		}
		f, err := newFile(name, b)
		h.files[name] = f
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("console: load assets: %w", err)
	}
	if index == nil {
		return nil, fmt.Errorf("console: load assets: no index.html")
	}
	// Assets live under a prefix that changes with any of them, so that
	// they can be cached for good while a new keel is seen at once; the
	// page itself is always revalidated.
	h.prefix = "/assets/" + hex.EncodeToString(all.Sum(nil))[:12] + "/"
	if h.index, err = newFile("index.html", bytes.ReplaceAll(index, []byte(assetsPlaceholder), []byte(h.prefix))); err != nil {
		return nil, fmt.Errorf("console: load assets: %w", err)
	}
	return h, nil
}

func newFile(name string, b []byte) (file, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return file{}, err
	}
	if _, err := zw.Write(b); err != nil {
		return file{}, err
	}
	if err := zw.Close(); err != nil {
		return file{}, err
	}
	sum := sha256.Sum256(b)
	ct := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js":
		ct = "text/javascript; charset=utf-8"
	case ".html":
		ct = "text/html; charset=utf-8"
	case ".css":
		ct = "text/css; charset=utf-8"
	case ".svg":
		ct = "image/svg+xml"
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	f := file{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
	// A file that gzip does not shrink is sent as it is.
	if buf.Len() < len(b) {
		f.gz = buf.Bytes()
	}
	return f, nil
}

// AssetPrefix is the path under which the current assets are served, such
// as "/assets/3f2a9c1d0b7e/".
func (h *Handler) AssetPrefix() string { return h.prefix }

// isPage reports whether p is one of the page's own paths: the page is
// one document that shows what its path names.
func isPage(p string) bool {
	if p == "/" {
		return true
	}
	for _, root := range []string{"/agents", "/threads", "/sandbox", "/refusals"} {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

// ServeHTTP answers GET and HEAD for the page's paths and its assets.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "console: use GET", http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	switch p := r.URL.Path; {
	case isPage(p):
		hdr.Set("Content-Security-Policy", securityPolicy)
		hdr.Set("Cache-Control", "no-cache")
		serve(w, r, h.index)
	case strings.HasPrefix(p, h.prefix):
		f, ok := h.files[strings.TrimPrefix(p, h.prefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
		serve(w, r, f)
	case strings.HasPrefix(p, "/assets/"):
		// An asset of another keel version: the page that asked for it
		// is old and must be loaded again.
		hdr.Set("Cache-Control", "no-store")
		http.NotFound(w, r)
	default:
		http.NotFound(w, r)
	}
}

func serve(w http.ResponseWriter, r *http.Request, f file) {
	hdr := w.Header()
	hdr.Set("ETag", f.etag)
	hdr.Set("Vary", "Accept-Encoding")
	if etagMatch(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := f.body
	if f.gz != nil && httpgzip.Accepted(r.Header.Get("Accept-Encoding")) {
		body = f.gz
		hdr.Set("Content-Encoding", "gzip")
	}
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// etagMatch reports whether an If-None-Match header names etag (or is
// "*"); a weak validator of the same value matches too.
func etagMatch(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == etag || v == "*" {
			return true
		}
	}
	return false
}
