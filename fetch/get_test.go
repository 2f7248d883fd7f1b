package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel/fetch"
)

// fileServer is a local server whose handler counts the requests it got.
type fileServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newFileServer(t *testing.T, h http.HandlerFunc) *fileServer {
	t.Helper()
	fs := &fileServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(fs.Close)
	return fs
}

// serve answers with body as contentType.
func serve(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}
}

// port is the server's port, for links under another host name.
func (fs *fileServer) port(t *testing.T) string {
	u, err := url.Parse(fs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// resolveTo answers every name with addrs.
func resolveTo(addrs ...string) func(context.Context, string) ([]netip.Addr, error) {
	return func(context.Context, string) ([]netip.Addr, error) {
		out := make([]netip.Addr, len(addrs))
		for i, a := range addrs {
			out[i] = netip.MustParseAddr(a)
		}
		return out, nil
	}
}

func wantCode(t *testing.T, err error, want fetch.Code) *fetch.Error {
	t.Helper()
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Code != want {
		t.Fatalf("Got(Get) = %v; want a %s error", err, want)
	}
	return fe
}

func TestGetAllowedHost(t *testing.T) {
	var ua, accept string
	srv := newFileServer(t, func(w http.ResponseWriter, r *http.Request) {
		ua, accept = r.Header.Get("User-Agent"), r.Header.Get("Accept")
		if len(r.Cookies()) > 0 || r.Header.Get("Authorization") != "" {
			t.Errorf("Got(request) with cookies or credentials; want none")
		}
		serve("text/csv; charset=utf-8", []byte("Name,City\nAda,Berlin\n"))(w, r)
	})
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	f, err := c.Get(context.Background(), srv.URL+"/leads.csv?sig=abc", "text/csv")
	if err != nil {
		t.Fatalf("Got(Get) = %v; want the file", err)
	}
	if string(f.Data) != "Name,City\nAda,Berlin\n" || f.MediaType != "text/csv" || f.URL != srv.URL+"/leads.csv" {
		t.Errorf("Got(file) = %q, %q, %q; want the CSV, text/csv, the link without its query", f.Data, f.MediaType, f.URL)
	}
	if ua != fetch.DefaultUserAgent || accept != "text/csv" {
		t.Errorf("Got(User-Agent, Accept) = %q, %q; want %q, text/csv", ua, accept, fetch.DefaultUserAgent)
	}
}

func TestGetNotAllowedSendsNothing(t *testing.T) {
	srv := newFileServer(t, serve("text/plain", []byte("secret")))
	for _, allow := range [][]string{nil, {"files.example.com"}, {"127.0.0.2"}} {
		c := mustClient(t, fetch.Options{AllowHosts: allow})
		_, err := c.Get(context.Background(), srv.URL+"/a.txt", "text/plain")
		fe := wantCode(t, err, fetch.CodeHostNotAllowed)
		if fe.Host != "127.0.0.1" || !fe.Refused() {
			t.Errorf("Got(error) = %+v; want host 127.0.0.1, refused", fe)
		}
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("Got(requests to the server) = %d; want 0", n)
	}
}

// TestGetNonPublicAddress checks that a host allowed only by a wildcard
// is never connected to at a loopback, private or metadata address,
// while a host allowed by name is.
func TestGetNonPublicAddress(t *testing.T) {
	srv := newFileServer(t, serve("text/plain", []byte("internal")))
	port := srv.port(t)
	tests := []struct {
		name    string
		allow   []string
		lookup  []string // nil: the system resolver
		url     string
		refused bool
	}{
		{"localhost by the system resolver", []string{"*"}, nil, "http://localhost:" + port + "/a.txt", true},
		{"a name resolving to loopback", []string{"*.test"}, []string{"127.0.0.1"}, "http://files.test:" + port + "/a.txt", true},
		{"a name resolving to IPv6 loopback", []string{"*"}, []string{"::1"}, "http://files.test:" + port + "/a.txt", true},
		{"a name resolving to the metadata address", []string{"*"}, []string{"169.254.169.254"}, "http://files.test:" + port + "/a.txt", true},
		{"a name resolving to IPv6 metadata", []string{"*"}, []string{"fd00:ec2::254"}, "http://files.test:" + port + "/a.txt", true},
		{"a name resolving to mapped loopback", []string{"*"}, []string{"::ffff:127.0.0.1"}, "http://files.test:" + port + "/a.txt", true},
		{"an IP literal allowed by *", []string{"*"}, nil, "http://127.0.0.1:" + port + "/a.txt", true},
		{"an IPv6 literal allowed by *", []string{"*"}, nil, "http://[::ffff:127.0.0.1]:" + port + "/a.txt", true},
		{"the name allowed exactly", []string{"files.test"}, []string{"127.0.0.1"}, "http://files.test:" + port + "/a.txt", false},
		{"the name allowed exactly, linked in capitals with a dot", []string{"files.test"}, []string{"127.0.0.1"}, "http://FILES.Test.:" + port + "/a.txt", false},
		{"the name allowed in capitals with a dot", []string{"FILES.TEST."}, []string{"127.0.0.1"}, "http://files.test:" + port + "/a.txt", false},
		{"the address allowed exactly", []string{"127.0.0.1"}, nil, "http://127.0.0.1:" + port + "/a.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fetch.Options{AllowHosts: tt.allow}
			if tt.lookup != nil {
				opts.LookupHost = resolveTo(tt.lookup...)
			}
			before := srv.hits.Load()
			f, err := mustClient(t, opts).Get(context.Background(), tt.url, "text/plain")
			if !tt.refused {
				if err != nil || string(f.Data) != "internal" {
					t.Fatalf("Got(Get) = %v; want the file", err)
				}
				return
			}
			fe := wantCode(t, err, fetch.CodePrivateAddress)
			if fe.Address == "" || fe.Refused() {
				t.Errorf("Got(error) = %+v; want the address named, not a rules-only refusal", fe)
			}
			if n := srv.hits.Load() - before; n != 0 {
				t.Errorf("Got(requests to the server) = %d; want 0", n)
			}
		})
	}
}

func TestGetRedirects(t *testing.T) {
	inner := newFileServer(t, serve("text/plain", []byte("internal")))
	innerPort := inner.port(t)
	var loops atomic.Int64
	outer := newFileServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-localhost":
			http.Redirect(w, r, "http://localhost:"+innerPort+"/secret", http.StatusFound)
		case "/to-loopback-name":
			http.Redirect(w, r, "http://internal.test:"+innerPort+"/secret", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-other-host":
			http.Redirect(w, r, "http://127.0.0.2:"+innerPort+"/secret", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/to-userinfo":
			http.Redirect(w, r, "http://127.0.0.1@localhost:"+innerPort+"/", http.StatusFound)
		case "/loop":
			loops.Add(1)
			http.Redirect(w, r, "/loop?n="+fmt.Sprint(loops.Load()), http.StatusFound)
		case "/ok":
			http.Redirect(w, r, "/file", http.StatusMovedPermanently)
		case "/file":
			serve("text/plain", []byte("the file"))(w, r)
		}
	})
	lookup := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "internal.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, errors.New("no such host")
	}
	// The outer server is allowed by its address; everything else only by
	// the wildcard, so only at public addresses.
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1", "*.test"}, LookupHost: lookup})
	wild := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1", "*"}})
	tests := []struct {
		name string
		c    *fetch.Client
		path string
		want fetch.Code
	}{
		{"to localhost", wild, "/to-localhost", fetch.CodePrivateAddress},
		{"to a name resolving to loopback", c, "/to-loopback-name", fetch.CodePrivateAddress},
		{"to the metadata address", wild, "/to-metadata", fetch.CodePrivateAddress},
		{"to a host not allowed", c, "/to-other-host", fetch.CodeBadRedirect},
		{"to file:", wild, "/to-file", fetch.CodeBadRedirect},
		{"to a link with a user name", wild, "/to-userinfo", fetch.CodeBadRedirect},
		{"endless", c, "/loop", fetch.CodeBadRedirect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := inner.hits.Load()
			_, err := tt.c.Get(context.Background(), outer.URL+tt.path, "text/plain")
			wantCode(t, err, tt.want)
			if n := inner.hits.Load() - before; n != 0 {
				t.Errorf("Got(requests to the inner server) = %d; want 0", n)
			}
		})
	}
	if n := loops.Load(); n != fetch.DefaultMaxRedirects+1 {
		t.Errorf("Got(requests of the endless chain) = %d; want %d (the first and %d redirects)", n, fetch.DefaultMaxRedirects+1, fetch.DefaultMaxRedirects)
	}
	f, err := c.Get(context.Background(), outer.URL+"/ok", "text/plain")
	if err != nil || string(f.Data) != "the file" || f.URL != outer.URL+"/file" {
		t.Errorf("Got(Get through an allowed redirect) = %v, %v; want the file from %s/file", f, err, outer.URL)
	}
}

func TestGetRedirectFromHTTPSToHTTP(t *testing.T) {
	plain := newFileServer(t, serve("text/plain", []byte("plain")))
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/a.txt", http.StatusFound)
	}))
	t.Cleanup(tlsSrv.Close)
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	fetch.TrustForTest(c, tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig)
	_, err := c.Get(context.Background(), tlsSrv.URL+"/a.txt", "text/plain")
	if fe := wantCode(t, err, fetch.CodeBadRedirect); !strings.Contains(fe.Error(), "from https to http") {
		t.Errorf("Got(error) = %v; want it to name the downgrade", fe)
	}
	if plain.hits.Load() != 0 {
		t.Errorf("Got(requests over http) = %d; want 0", plain.hits.Load())
	}
}

func TestGetSizeCap(t *testing.T) {
	const limit = fetch.DefaultMaxSize
	srv := newFileServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := limit
		if r.URL.Path != "/exact" {
			n++
		}
		w.Header().Set("Content-Type", "application/pdf")
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", fmt.Sprint(n))
		}
		// Written in pieces and flushed: no Content-Length is sent, so
		// only counting the bytes can catch the one too many.
		chunk := bytes.Repeat([]byte{'x'}, 64<<10)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
			w.(http.Flusher).Flush()
		}
	})
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	f, err := c.Get(context.Background(), srv.URL+"/exact", "application/pdf")
	if err != nil || len(f.Data) != limit {
		t.Fatalf("Got(Get of exactly %d bytes) = %v; want the file", limit, err)
	}
	for _, path := range []string{"/one-over", "/declared"} {
		_, err = c.Get(context.Background(), srv.URL+path, "application/pdf")
		if fe := wantCode(t, err, fetch.CodeTooLarge); fe.Limit != limit {
			t.Errorf("Got(Limit of %s) = %d; want %d", path, fe.Limit, limit)
		}
	}
	small := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}, MaxSize: 1000})
	_, err = small.Get(context.Background(), srv.URL+"/exact", "application/pdf")
	wantCode(t, err, fetch.CodeTooLarge)
}

func TestGetStatusAndMediaType(t *testing.T) {
	srv := newFileServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			serve("text/html; charset=utf-8", []byte("<html>Sign in</html>"))(w, r)
		case "/none":
			w.Header()["Content-Type"] = nil
			w.Write([]byte("%PDF-1.4"))
		default:
			var status int
			fmt.Sscanf(r.URL.Path, "/status/%d", &status)
			w.WriteHeader(status)
		}
	})
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	for _, tt := range []struct {
		status int
		gone   bool
	}{{403, true}, {404, true}, {410, true}, {500, false}, {401, false}, {206, false}} {
		_, err := c.Get(context.Background(), fmt.Sprintf("%s/status/%d", srv.URL, tt.status), "application/pdf")
		fe := wantCode(t, err, fetch.CodeStatus)
		if fe.Status != tt.status || fe.Gone() != tt.gone || fe.Refused() {
			t.Errorf("Got(error of %d) = %+v, gone %v; want status %d, gone %v", tt.status, fe, fe.Gone(), tt.status, tt.gone)
		}
	}
	_, err := c.Get(context.Background(), srv.URL+"/login", "application/pdf")
	if fe := wantCode(t, err, fetch.CodeMediaType); fe.MediaType != "text/html" || fe.Want != "application/pdf" {
		t.Errorf("Got(mismatch) = %+v; want text/html for application/pdf", fe)
	}
	f, err := c.Get(context.Background(), srv.URL+"/none", "application/pdf")
	if err != nil || f.MediaType != "" {
		t.Errorf("Got(Get without Content-Type) = %v, %v; want the file with no media type", f, err)
	}
}

func TestGetTimeoutAndCancel(t *testing.T) {
	started := make(chan struct{}, 4)
	srv := newFileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/stall-body" {
			w.Write([]byte("the start"))
			w.(http.Flusher).Flush()
		}
		started <- struct{}{}
		<-r.Context().Done() // until the client gives up
	})
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}, Timeout: 200 * time.Millisecond})
	for _, path := range []string{"/stall-headers", "/stall-body"} {
		_, err := c.Get(context.Background(), srv.URL+path, "text/plain")
		wantCode(t, err, fetch.CodeTimeout)
	}
	slow := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		<-started
		<-started // the third request: this one
		cancel()
	}()
	_, err := slow.Get(ctx, srv.URL+"/stall-headers", "text/plain")
	if !errors.Is(err, context.Canceled) || code(err) != "" {
		t.Errorf("Got(Get with a cancelled context) = %v; want context.Canceled as is", err)
	}
}

func TestGetConnectionFailure(t *testing.T) {
	srv := newFileServer(t, serve("text/plain", nil))
	url := srv.URL
	srv.Close()
	c := mustClient(t, fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	_, err := c.Get(context.Background(), url+"/a.txt", "text/plain")
	if fe := wantCode(t, err, fetch.CodeFailed); fe.Refused() || fe.Gone() {
		t.Errorf("Got(error) = %+v; want neither refused nor gone", fe)
	}
}
