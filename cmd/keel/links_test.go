package main_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// filesServer serves the files the links of the tests point to, on addr
// ("127.0.0.1:0"), counting the requests of each path; /report.csv
// answers 410 once gone is set, as an expired signed link does.
type filesServer struct {
	*httptest.Server
	gone atomic.Bool
	hits map[string]*atomic.Int64 // by path; set before the server starts
}

func newFilesServer(t *testing.T, addr string, h func(fs *filesServer, w http.ResponseWriter, r *http.Request)) *filesServer {
	t.Helper()
	fs := &filesServer{hits: map[string]*atomic.Int64{}}
	for _, p := range []string{"/leads.csv", "/report.csv", "/big.pdf", "/to-loopback", "/secret.txt"} {
		fs.hits[p] = new(atomic.Int64)
	}
	l, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", addr, err)
	}
	fs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := fs.hits[r.URL.Path]; c != nil {
			c.Add(1)
		}
		h(fs, w, r)
	}))
	fs.Listener.Close()
	fs.Listener = l
	fs.Start()
	t.Cleanup(fs.Close)
	return fs
}

func (fs *filesServer) hitsOf(path string) int64 { return fs.hits[path].Load() }

func (fs *filesServer) port() string {
	_, port, _ := net.SplitHostPort(fs.Listener.Addr().String())
	return port
}

// linkBody is a generate request whose user message holds text and a file
// given by link.
func linkBody(text, link, mediaType, thread string) string {
	mem := ""
	if thread != "" {
		mem = fmt.Sprintf(`,"memory":{"thread":%q,"resource":"u1"}`, thread)
	}
	return fmt.Sprintf(`{"messages":[{"role":"user","content":[{"type":"text","text":%q},{"type":"file","data":%q,"mediaType":%q}]}]%s}`,
		text, link, mediaType, mem)
}

// requestWith returns the user texts of the Gemini request whose user
// text holds marker, and its files as "type:data" (or "type:URL").
func requestWith(t *testing.T, srv *googletest.Server, marker string) (texts string, files []string) {
	t.Helper()
	for _, r := range srv.Requests() {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(b.UserTexts(), "\n")
		if !strings.Contains(joined, marker) {
			continue
		}
		sent, err := b.Files()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range sent {
			files = append(files, f.MediaType+":"+string(f.Data)+f.URL)
		}
		return joined, files
	}
	t.Fatalf("Got(requests) without %q; want one", marker)
	return "", nil
}

// TestServeLinks runs keel serve with two agents downloading links by
// files.fetch: "reader" from 127.0.0.1 only, "wild" from any host, and
// from 127.0.0.1 by name, files.test resolving to a loopback address by
// keel.yaml's resolve, not the machine's DNS.
func TestServeLinks(t *testing.T) {
	big := bytes.Repeat([]byte("%"), 10<<20+1)
	// inner is on another loopback address, where only a refused
	// connection would have gone.
	inner := newFilesServer(t, "127.0.0.2:0", func(_ *filesServer, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "internal secret")
	})
	files := newFilesServer(t, "127.0.0.1:0", func(fs *filesServer, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/leads.csv":
			w.Header().Set("Content-Type", "text/csv")
			fmt.Fprint(w, "Name,City\nAda,Berlin\n")
		case "/report.csv":
			if fs.gone.Load() {
				http.Error(w, "link expired", http.StatusGone)
				return
			}
			w.Header().Set("Content-Type", "text/csv")
			fmt.Fprint(w, "Quarter,Revenue\nQ1,100\n")
		case "/big.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(big)
		case "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.2:"+inner.port()+"/secret.txt", http.StatusFound)
		}
	})
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(`agents:
  - id: reader
    sandbox: none
    files:
      fetch: {allowHosts: [127.0.0.1]}
  - id: wild
    sandbox: none
    files:
      fetch:
        allowHosts: ["*", 127.0.0.1]
        resolve: {files.test: 127.0.0.2}
`))
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	base := files.URL

	t.Run("an allowed host: the text reaches the model", func(t *testing.T) {
		generate(t, s.url, "reader", linkBody("marker-allowed", base+"/leads.csv", "text/csv", ""))
		_, sent := requestWith(t, srv, "marker-allowed")
		if len(sent) != 1 || sent[0] != "text/csv:Name,City\nAda,Berlin\n" {
			t.Errorf("Got(files sent to Gemini) = %q; want the CSV's bytes inline", sent)
		}
	})
	t.Run("a host not allowed is never fetched", func(t *testing.T) {
		generate(t, s.url, "reader", linkBody("marker-not-allowed", "http://localhost:"+inner.port()+"/secret.txt", "text/plain", ""))
		texts, sent := requestWith(t, srv, "marker-not-allowed")
		if len(sent) != 0 || !strings.Contains(texts, `reason: The host "localhost" is not on the list of hosts files may be downloaded from.`) {
			t.Errorf("Got(Gemini's request) = %q, files %q; want the note saying why", texts, sent)
		}
	})
	t.Run("a redirect to loopback is refused", func(t *testing.T) {
		generate(t, s.url, "wild", linkBody("marker-redirect", base+"/to-loopback", "text/plain", ""))
		texts, sent := requestWith(t, srv, "marker-redirect")
		if files.hitsOf("/to-loopback") != 1 || len(sent) != 0 || !strings.Contains(texts, `The host "127.0.0.2" is at a non-public address (127.0.0.2)`) {
			t.Errorf("Got(Gemini's request) = %q, files %q; want the redirect refused", texts, sent)
		}
	})
	t.Run("a name resolving to loopback is refused", func(t *testing.T) {
		generate(t, s.url, "wild", linkBody("marker-dns", "http://files.test:"+inner.port()+"/secret.txt", "text/plain", ""))
		texts, sent := requestWith(t, srv, "marker-dns")
		if len(sent) != 0 || !strings.Contains(texts, `The host "files.test" is at a non-public address (127.0.0.2)`) {
			t.Errorf("Got(Gemini's request) = %q, files %q; want the name refused at its address", texts, sent)
		}
	})
	if n := inner.hitsOf("/secret.txt"); n != 0 {
		t.Errorf("Got(requests to the loopback server) = %d; want 0", n)
	}
	t.Run("10 MiB and 1 byte is refused", func(t *testing.T) {
		generate(t, s.url, "reader", linkBody("marker-big", base+"/big.pdf", "application/pdf", ""))
		texts, sent := requestWith(t, srv, "marker-big")
		if len(sent) != 0 || !strings.Contains(texts, "reason: The file is over the 10485760 byte limit.") {
			t.Errorf("Got(Gemini's request) = %q, files %d; want the size refused", texts, len(sent))
		}
	})
	t.Run("a link that dies between two turns", func(t *testing.T) {
		generate(t, s.url, "reader", linkBody("marker-turn-1", base+"/report.csv?sig=s3cret", "text/csv", "th-links"))
		if _, sent := requestWith(t, srv, "marker-turn-1"); len(sent) != 1 || !strings.Contains(sent[0], "Q1,100") {
			t.Fatalf("Got(first turn's files) = %q; want the report", sent)
		}
		files.gone.Store(true)
		g := generate(t, s.url, "reader", `{"messages":"marker-turn-2","memory":{"thread":"th-links","resource":"u1"}}`)
		texts, sent := requestWith(t, srv, "marker-turn-2")
		if g.Text == "" || len(sent) != 0 || !strings.Contains(texts, "reason: The server answered 410 Gone; the link has probably expired.") || strings.Contains(texts, "s3cret") {
			t.Errorf("Got(second turn) = %q; Gemini got %q, files %q; want an answer with the expired link's note", g.Text, texts, sent)
		}
		hits := files.hitsOf("/report.csv")
		generate(t, s.url, "reader", `{"messages":"marker-turn-3","memory":{"thread":"th-links","resource":"u1"}}`)
		if texts, _ := requestWith(t, srv, "marker-turn-3"); files.hitsOf("/report.csv") != hits || !strings.Contains(texts, "probably expired") {
			t.Errorf("Got(third turn) = %d more downloads; want none, the failure remembered", files.hitsOf("/report.csv")-hits)
		}
		code, body := call(t, "GET", s.url+"/api/memory/threads/th-links/messages?resourceId=u1", "", "")
		// The link is kept, not the bytes, and its failure with it.
		if code != 200 || !strings.Contains(string(body), `"linkFailures":{`) || !strings.Contains(string(body), base+"/report.csv?sig=s3cret") || strings.Contains(string(body), "Q1,100") {
			t.Errorf("Got(stored messages) = %d %s; want the link kept and its failure", code, body)
		}
	})
}
