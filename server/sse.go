package server

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// sseWriter writes Server-Sent Events: each event exactly
// "data: <one-line JSON>\n\n", keep-alive comments ": ping\n\n" while the
// stream is quiet, and "data: [DONE]\n\n" at the end. Its methods are safe
// for concurrent use (the keep-alive ticker writes too).
type sseWriter struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	rc     *http.ResponseController
	buf    []byte
	failed bool
	// gone is called once when a write fails: the client went away or
	// stopped reading, so the run it asked for can stop too, even while
	// only keep-alives are being written.
	gone func()
	last time.Time
	stop chan struct{}
	wg   sync.WaitGroup
}

// openSSE writes the stream's headers and starts the keep-alive comments
// (none when keepAlive is negative); gone is called once if a write fails.
func openSSE(w http.ResponseWriter, keepAlive time.Duration, gone func()) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), stop: make(chan struct{}), last: time.Now(), gone: gone}
	_ = sw.rc.Flush()
	if keepAlive > 0 {
		sw.wg.Add(1)
		go sw.keepAlive(keepAlive)
	}
	return sw
}

func (sw *sseWriter) keepAlive(every time.Duration) {
	defer sw.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-sw.stop:
			return
		case <-t.C:
			sw.mu.Lock()
			if time.Since(sw.last) >= every {
				sw.writeLocked([]byte(": ping\n\n"))
			}
			sw.mu.Unlock()
		}
	}
}

// event writes v as one event; false means the client is gone.
func (sw *sseWriter) event(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"type": "error", "from": "AGENT",
			"payload": errorPayload{Error: wireError{Message: "server: encode event: " + err.Error(), Name: "Error"}}})
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.buf = append(append(append(sw.buf[:0], "data: "...), b...), "\n\n"...)
	return sw.writeLocked(sw.buf)
}

// raw writes b, whole events or comments already encoded; false means
// the client is gone.
func (sw *sseWriter) raw(b []byte) bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.writeLocked(b)
}

func (sw *sseWriter) writeLocked(b []byte) bool {
	if sw.failed {
		return false
	}
	if _, err := sw.w.Write(b); err != nil {
		sw.fail()
		return false
	}
	if err := sw.rc.Flush(); err != nil {
		sw.fail()
		return false
	}
	sw.last = time.Now()
	return true
}

func (sw *sseWriter) fail() {
	sw.failed = true
	if sw.gone != nil {
		sw.gone()
	}
}

// done ends the stream with "data: [DONE]".
func (sw *sseWriter) done() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.writeLocked([]byte("data: [DONE]\n\n"))
}

// close stops the keep-alive comments; nothing is written after it.
func (sw *sseWriter) close() {
	close(sw.stop)
	sw.wg.Wait()
	sw.mu.Lock()
	sw.failed = true
	sw.mu.Unlock()
}
