package providertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer of a [Server].
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header holds extra response headers (Retry-After, x-should-retry, ...).
	Header http.Header
	// Body is written as is.
	Body string
	// ContentType is the Content-Type header; "" means application/json.
	ContentType string
	// Delay holds the answer back this long, or until the client goes away.
	Delay time.Duration
	// Stall writes the body up to its last server-sent event, then waits
	// for the client to go away (at most 10 s) instead of ending the
	// stream. It lets a test stop or cancel a stream half way.
	Stall bool
}

// Recorded is one request a [Server] received.
type Recorded struct {
	Method, Path string
	// Query is the raw query string.
	Query  string
	Header http.Header
	Body   []byte
}

// Server is an httptest.Server that answers scripted Replies in order (the
// last one repeats) and records every request. It is safe for concurrent
// use.
type Server struct {
	srv *httptest.Server

	mu        sync.Mutex
	replies   []Reply
	requests  []Recorded
	next      int
	cancelled int
}

// NewServer starts a [Server] answering replies and closes it when the test
// ends. With no replies it answers 200 with an empty JSON object.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := Start(replies...)
	t.Cleanup(s.Close)
	return s
}

// Start starts a [Server] outside a test; the caller must [Server.Close]
// it.
func Start(replies ...Reply) *Server {
	s := &Server{replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the server's base URL, such as "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.srv.URL }

// Close shuts the server down, cutting open connections.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Cancelled counts the requests whose client went away before the answer
// was complete (a stalled or delayed reply that was abandoned).
func (s *Server) Cancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// SetReplies replaces the script; the next request gets the first reply.
func (s *Server) SetReplies(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = replies
	s.next = 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Recorded{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body,
	})
	rep := Reply{Body: "{}"}
	if len(s.replies) > 0 {
		i := s.next
		if i >= len(s.replies) {
			i = len(s.replies) - 1
		}
		rep = s.replies[i]
		s.next++
	}
	s.mu.Unlock()

	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			s.markCancelled()
			return
		}
	}
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	ct := rep.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if !rep.Stall {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, allButLastEvent(rep.Body))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	select {
	case <-r.Context().Done():
		s.markCancelled()
	case <-time.After(10 * time.Second):
	}
}

func (s *Server) markCancelled() {
	s.mu.Lock()
	s.cancelled++
	s.mu.Unlock()
}

// allButLastEvent cuts the last server-sent event off a stream body, so a
// stalled stream never reaches its end.
func allButLastEvent(body string) string {
	trimmed := strings.TrimRight(body, "\r\n")
	if i := strings.LastIndex(trimmed, "\n\n"); i >= 0 {
		return trimmed[:i+2]
	}
	return ""
}
