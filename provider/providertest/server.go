package providertest

import (
	"cmp"
	"io"
	"net"
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
	// for the client to go away (at most 30 s) instead of ending the
	// stream. It lets a test stop or cancel a stream half way; with an
	// empty body, the server stalls right after the headers.
	Stall bool
	// StallAfter, when above 0, writes only the body's first StallAfter
	// bytes, then waits as Stall does.
	StallAfter int
	// ResetAfter, when above 0, writes only the body's first ResetAfter
	// bytes, then resets the connection (a TCP RST, as a connection that
	// dropped gives the client). [EventCut] finds a place inside an event.
	ResetAfter int
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
// last one repeats), or what a function makes of each request, and records
// every request. It is safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	respond func(r Recorded, n int) Reply

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

// NewServerFunc starts a [Server] that answers each request with what
// respond returns for it (n counts requests from 0), and closes it when
// the test ends. respond may be called concurrently.
func NewServerFunc(t testing.TB, respond func(r Recorded, n int) Reply) *Server {
	t.Helper()
	s := StartFunc(respond)
	t.Cleanup(s.Close)
	return s
}

// StartFunc is [NewServerFunc] outside a test; the caller must
// [Server.Close] it.
func StartFunc(respond func(r Recorded, n int) Reply) *Server {
	s := &Server{respond: respond}
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
// It has no effect on a server made by [NewServerFunc].
func (s *Server) SetReplies(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = replies
	s.next = 0
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Recorded{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body,
	}
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, rec)
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
	if s.respond != nil {
		rep = s.respond(rec, n)
	}

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
	ct = cmp.Or(ct, "application/json")
	w.Header().Set("Content-Type", ct)
	status := rep.Status
	status = cmp.Or(status, http.StatusOK)
	w.WriteHeader(status)
	switch {
	case rep.ResetAfter > 0:
		writeFlush(w, rep.Body[:min(rep.ResetAfter, len(rep.Body))])
		reset(w)
	case rep.StallAfter > 0:
		writeFlush(w, rep.Body[:min(rep.StallAfter, len(rep.Body))])
		s.stall(r)
	case rep.Stall:
		writeFlush(w, allButLastEvent(rep.Body))
		s.stall(r)
	default:
		_, _ = io.WriteString(w, rep.Body)
	}
}

// writeFlush writes part of a body and sends it at once.
func writeFlush(w http.ResponseWriter, part string) {
	_, _ = io.WriteString(w, part)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// stallFor bounds how long a stalled reply waits for its client to go
// away: long enough for a loaded machine to notice, short enough that a
// test that never lets go still ends.
const stallFor = 30 * time.Second

// stall waits for the client to go away, at most stallFor.
func (s *Server) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
		s.markCancelled()
	case <-time.After(stallFor):
	}
}

// reset drops the connection with a TCP RST: what was written reaches the
// client, then its next read fails with "connection reset by peer".
func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic("providertest: reset: " + err.Error())
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// EventCut returns the offset of a place inside the data of the n-th
// server-sent event of body (from 1): a connection reset there leaves the
// client with half an event. It is -1 when body has fewer events.
func EventCut(body string, n int) int {
	at := 0
	for i := 1; ; i++ {
		end := strings.Index(body[at:], "\n\n")
		if end < 0 {
			if strings.TrimSpace(body[at:]) == "" {
				return -1
			}
			end = len(body) - at
		}
		if i == n {
			event := body[at : at+end]
			data := strings.Index(event, "data:")
			if data < 0 {
				data = 0
			}
			return at + data + (len(event)-data)/2
		}
		at += end + 2
		if at >= len(body) {
			return -1
		}
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
