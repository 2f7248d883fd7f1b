package googletest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// DefaultText is what a [Server] answers when [Options.Text] is empty.
const DefaultText = "Hello from Gemini."

// Options says how a [Server] answers.
type Options struct {
	// Text is the model's answer; "" means [DefaultText]. A stream sends
	// it word by word.
	Text string
	// Unsupported lists media types Gemini does not read: a request
	// carrying an inline file of one of them gets the real 400
	// INVALID_ARGUMENT "Unsupported MIME type: <type>".
	Unsupported []string
	// Internal lists media types that make Gemini fail: a request carrying
	// an inline file of one of them gets the real 502 INTERNAL, which says
	// nothing about the file.
	Internal []string
	// Respond, when not nil, answers each request first; returning false
	// leaves the request to the behaviour above. n counts requests from 0.
	Respond func(r Request, n int) (providertest.Reply, bool)
}

// Request is one request a [Server] received.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
	// Model is the model named in the path, such as "gemini-2.5-flash".
	Model string
	// Stream reports a streamGenerateContent call.
	Stream bool
}

// Decode decodes the request's body.
func (r Request) Decode() (Body, error) { return Decode(r.Body) }

// Server is a local server speaking the Gemini API's generateContent and
// streamGenerateContent (alt=sse) under /v1beta/models/. Point an adapter
// at [Server.URL] (the SDK adds the path). It is safe for concurrent use.
type Server struct {
	srv  *httptest.Server
	opts Options

	mu       sync.Mutex
	requests []Request
}

// NewServer starts a [Server] and closes it when the test ends.
func NewServer(t testing.TB, opts Options) *Server {
	t.Helper()
	s := Start(opts)
	t.Cleanup(s.Close)
	return s
}

// Start starts a [Server] outside a test; the caller must [Server.Close]
// it.
func Start(opts Options) *Server {
	s := &Server{opts: opts}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's base URL, such as "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	model, method, _ := strings.Cut(rest, ":")
	req.Model, req.Stream = model, method == "streamGenerateContent"
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if s.opts.Respond != nil {
		if rep, ok := s.opts.Respond(req, n); ok {
			write(w, rep)
			return
		}
	}
	switch {
	case !ok || r.Method != http.MethodPost || (method != "generateContent" && method != "streamGenerateContent"):
		write(w, providertest.Reply{Status: 404, Body: ErrorBody(404, "NOT_FOUND", "Method not found.")})
		return
	case r.Header.Get("X-Goog-Api-Key") == "":
		write(w, providertest.Reply{Status: 403, Body: ErrorBody(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")})
		return
	}
	decoded, err := Decode(body)
	if err != nil {
		write(w, providertest.Reply{Status: 400, Body: ErrorBody(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")})
		return
	}
	for _, mt := range decoded.InlineMediaTypes() {
		if containsType(s.opts.Unsupported, mt) {
			write(w, providertest.Reply{Status: 400, Body: UnsupportedMIMEBody(mt)})
			return
		}
		if containsType(s.opts.Internal, mt) {
			write(w, providertest.Reply{Status: 502, Body: InternalBody(502)})
			return
		}
	}
	text := s.opts.Text
	if text == "" {
		text = DefaultText
	}
	if req.Stream {
		write(w, providertest.Reply{Body: StreamTextBody(text), ContentType: "text/event-stream"})
		return
	}
	write(w, providertest.Reply{Body: TextBody(text)})
}

func containsType(list []string, mt string) bool {
	for _, t := range list {
		if keel.NormalizeMediaType(t) == keel.NormalizeMediaType(mt) {
			return true
		}
	}
	return false
}

func write(w http.ResponseWriter, rep providertest.Reply) {
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	ct := rep.ContentType
	if ct == "" {
		ct = "application/json; charset=UTF-8"
	}
	w.Header().Set("Content-Type", ct)
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, rep.Body)
}
