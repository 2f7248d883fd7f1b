package main

import (
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/keel-go/keel/provider/google/googletest"
)

// modelServer is a zero-latency model server speaking Gemini's
// generateContent and streamGenerateContent. Unlike googletest.Server it
// keeps no record of requests, so thousands of calls cost it nothing.
type modelServer struct {
	srv  *http.Server
	ln   net.Listener
	text string
	sse  string
}

func startModelServer(text string) (*modelServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &modelServer{ln: ln, text: googletest.TextBody(text), sse: googletest.StreamTextBody(text)}
	m.srv = &http.Server{Handler: http.HandlerFunc(m.serve)}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *modelServer) URL() string { return "http://" + m.ln.Addr().String() }

func (m *modelServer) Close() { m.srv.Close() }

func (m *modelServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, m.sse)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = io.WriteString(w, m.text)
}
