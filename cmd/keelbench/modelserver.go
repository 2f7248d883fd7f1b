package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/keel-go/keel/provider/google/googletest"
)

// The model servers keelbench can start (-model).
const (
	// modelInstant answers at once: the figures are keel's own cost.
	modelInstant = "instant"
	// modelDelay answers each call after -model-delay, as a fast hosted
	// model answers a short prompt.
	modelDelay = "delay"
	// modelStream streams its answer word by word at -tokens-per-second
	// (a word a token), as a hosted model streams; generateContent calls
	// wait as long as the whole stream would take.
	modelStream = "stream"
)

// modelServer is a model server speaking Gemini's generateContent and
// streamGenerateContent. Unlike googletest.Server it keeps no record of
// requests, so thousands of calls cost it nothing.
type modelServer struct {
	srv    *http.Server
	ln     net.Listener
	kind   string
	delay  time.Duration // modelDelay: before the answer; modelStream: between chunks
	text   string
	events []string // the stream's SSE events, each with its blank line
}

// modelSpec says which model server to start.
type modelSpec struct {
	kind            string
	delay           time.Duration
	tokensPerSecond float64
	text            string
}

func startModelServer(spec modelSpec) (*modelServer, error) {
	m := &modelServer{kind: spec.kind, text: googletest.TextBody(spec.text)}
	for ev := range strings.SplitAfterSeq(googletest.StreamTextBody(spec.text), "\n\n") {
		if ev != "" {
			m.events = append(m.events, ev)
		}
	}
	switch spec.kind {
	case modelInstant:
	case modelDelay:
		m.delay = spec.delay
	case modelStream:
		if spec.tokensPerSecond <= 0 {
			return nil, fmt.Errorf("tokens per second %v: want more than 0", spec.tokensPerSecond)
		}
		m.delay = time.Duration(float64(time.Second) / spec.tokensPerSecond)
	default:
		return nil, fmt.Errorf("model %q: want %s, %s or %s", spec.kind, modelInstant, modelDelay, modelStream)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m.ln = ln
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *modelServer) URL() string { return "http://" + m.ln.Addr().String() }

func (m *modelServer) Close() { m.srv.Close() }

// words is how many chunks the stream has: a generateContent call of
// modelStream takes as long as streaming them would.
func (m *modelServer) words() int { return len(m.events) }

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	stream := strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	if m.kind == modelDelay && !wait(r, m.delay) {
		return
	}
	if !stream {
		if m.kind == modelStream && !wait(r, time.Duration(m.words())*m.delay) {
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = io.WriteString(w, m.text)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	for i, ev := range m.events {
		if m.kind == modelStream && i > 0 && !wait(r, m.delay) {
			return
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// wait waits d, or until the request is cancelled; it reports whether
// the request is still wanted.
func wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
