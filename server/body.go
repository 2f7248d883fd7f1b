package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Request bodies are read under two rules besides their size limit:
//
//   - a minimum rate: after Config.BodyGrace, the body must have arrived
//     at Config.MinBodyRate bytes a second on average, or the read fails
//     and the request is answered 408 and its connection closed. A client
//     sending a byte a second cannot hold a connection for long, while a
//     slow but honest upload gets the time its size needs. The rule is a
//     read deadline moved forward as bytes arrive (http.ResponseController),
//     so it holds under any http.Server, not only the one Serve makes.
//   - drained answers: an answer written before the body was read (a 401,
//     a 413) is sent at once, then the body is read and thrown away, up to
//     maxDrainBytes and maxDrainTime, before the connection closes. A client
//     that sends its whole body before reading (as many do) would otherwise
//     meet a closed connection and never read the answer.

// maxDrainBytes and maxDrainTime bound what is read and thrown away of a
// body after its answer was written.
const (
	maxDrainBytes = 64 << 20
	maxDrainTime  = 30 * time.Second
)

// errBodyTooSlow is the error of a body read that broke the minimum rate.
var errBodyTooSlow = errors.New("server: request body arrived too slowly")

// guardedBody is a request body read under the rate rule, drained after
// the handler when it was not read to its end.
type guardedBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  float64 // bytes a second; 0 means no rate rule
	n     int64
	eof   bool
	err   error
	// continueWanted: the client waits for "100 Continue" before it sends
	// the body, so an answer written first means the body never comes.
	continueWanted bool
}

func (s *Server) guardBody(w http.ResponseWriter, r *http.Request) *guardedBody {
	b := &guardedBody{body: r.Body, rc: http.NewResponseController(w), start: time.Now(), grace: s.cfg.BodyGrace,
		continueWanted: strings.Contains(strings.ToLower(r.Header.Get("Expect")), "100-continue")}
	if s.cfg.MinBodyRate > 0 {
		b.rate = float64(s.cfg.MinBodyRate)
	}
	return b
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.rate > 0 {
		allowed := b.grace + time.Duration(float64(b.n)/b.rate*float64(time.Second))
		_ = b.rc.SetReadDeadline(b.start.Add(allowed))
	}
	n, err := b.body.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
		b.clearDeadline()
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("%w: %d bytes in %s", errBodyTooSlow, b.n, time.Since(b.start).Round(time.Millisecond))
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

func (b *guardedBody) Close() error { return b.body.Close() }

// done reports whether the body was read to its end or failed.
func (b *guardedBody) done() bool { return b.eof || b.err != nil }

// failed reports whether a read of the body failed, the client's going
// away aside.
func (b *guardedBody) failed() bool { return errors.Is(b.err, errBodyTooSlow) }

// clearDeadline lifts the rate rule once the body is read: the server
// watches the connection after the body for the client going away, and a
// deadline left there would end the request.
func (b *guardedBody) clearDeadline() {
	if b.rate > 0 {
		_ = b.rc.SetReadDeadline(time.Time{})
	}
}

// drain reads what is left of the body, within maxDrainBytes and
// maxDrainTime; when that is not all of it, the connection is left to
// close (the server does not reuse a connection with unread body).
func (b *guardedBody) drain() {
	if b.done() {
		return
	}
	if b.continueWanted && b.n == 0 {
		// Never asked for, the body will not come.
		_ = b.rc.SetReadDeadline(time.Now())
		return
	}
	deadline := time.Now().Add(maxDrainTime)
	if b.rate <= 0 {
		_ = b.rc.SetReadDeadline(deadline)
	}
	buf := make([]byte, 32<<10)
	for left := int64(maxDrainBytes); left > 0 && time.Now().Before(deadline); {
		n, err := b.Read(buf[:min(int64(len(buf)), left)])
		left -= int64(n)
		if err != nil {
			break
		}
	}
	if !b.eof {
		// The server's own look for the body's end must not wait either.
		_ = b.rc.SetReadDeadline(time.Now())
	}
}

// readBody reads the whole body, at most Config.MaxBodyBytes of it, into
// one buffer of the announced size. A body over the limit is a 413 and one
// that broke the minimum rate a 408; both close the connection once their
// answer is written and the body drained.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *requestError) {
	limit := s.cfg.MaxBodyBytes
	if r.ContentLength > limit {
		// Announced too big: answered at once, without reading the body
		// first.
		return nil, closing(w, tooLarge(limit))
	}
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 {
		buf.Grow(int(n) + bytes.MinRead) // room for the read that sees EOF
	}
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1)); err != nil {
		if errors.Is(err, errBodyTooSlow) {
			return nil, closing(w, &requestError{status: http.StatusRequestTimeout,
				msg: err.Error() + fmt.Sprintf(": after the first %s, send at least %d bytes a second", s.cfg.BodyGrace, s.cfg.MinBodyRate)})
		}
		return nil, badRequest("read request body: " + err.Error())
	}
	if int64(buf.Len()) > limit {
		return nil, closing(w, tooLarge(limit))
	}
	return buf.Bytes(), nil
}

// closing marks the answer to e as the connection's last.
func closing(w http.ResponseWriter, e *requestError) *requestError {
	w.Header().Set("Connection", "close")
	return e
}

func tooLarge(limit int64) *requestError {
	return &requestError{status: http.StatusRequestEntityTooLarge,
		msg: fmt.Sprintf("request body is over the %d byte limit: send smaller files", limit)}
}
