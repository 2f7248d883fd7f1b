package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// StatusClientClosed is the status logged for a request whose client went
// away before its answer was written (nginx's 499 "client closed
// request"): the client saw no answer, so none is logged.
const StatusClientClosed = 499

// guard is what every request goes through: CORS (a preflight is
// answered here, before any token is asked for), then the authentication,
// answered before any of the body is read; the body's rate rule; the
// per-write deadline; after the route, the draining of a body it did not
// read; and one log line, with the status the client saw:
// [StatusClientClosed] when it went away first, also told to the
// Config.Observer. Probes of /health, /ready and /metrics are logged at
// debug level.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		r, op, span := s.observeRequest(r)
		rec := &recorder{ResponseWriter: w, rc: http.NewResponseController(w), writeTimeout: s.cfg.WriteTimeout}
		rec.extendDeadline() // also covers the server's own "100 Continue"
		var body *guardedBody
		if r.Body != nil && r.Body != http.NoBody {
			body = s.guardBody(w, r)
			r.Body = body
			// An answer may be written before the body is read (a 401, a
			// 413): the body is drained after it instead of before.
			_ = rec.rc.EnableFullDuplex()
		}
		var who caller
		if s.cors == nil || !s.cors.handle(rec, r) {
			c, fail := s.authenticate(r)
			if fail != nil {
				if fail.status == http.StatusUnauthorized {
					rec.Header().Set("WWW-Authenticate", `Bearer realm="keel"`)
				}
				if body != nil {
					rec.Header().Set("Connection", "close")
				}
				writeError(rec, fail.status, fail.msg)
			} else {
				who = c
				if !c.trusted() {
					r = r.WithContext(context.WithValue(r.Context(), callerKey{}, c))
				}
				next.ServeHTTP(rec, r)
			}
		}
		// A body that broke its rate rule also ends the request's context;
		// any other end of it means the client went away.
		bodyFailed := false
		if body != nil {
			if !body.done() {
				// The answer goes out now, not after the drain.
				_ = rec.FlushError()
				body.drain()
			}
			bodyFailed = body.failed()
		}
		gone := rec.writeErr != nil || r.Context().Err() != nil && !bodyFailed
		status := s.logRequest(r, rec, who, gone, time.Since(start))
		endRequest(r, op, span, status)
	})
}

// logRequest logs the request and returns the status it logged.
func (s *Server) logRequest(r *http.Request, rec *recorder, who caller, gone bool, d time.Duration) int {
	status := rec.status
	switch {
	case gone:
		status = StatusClientClosed
	case status == 0:
		status = http.StatusOK // nothing written: net/http answers 200
	}
	level := slog.LevelInfo
	switch {
	case status >= 500 && status != StatusClientClosed:
		level = slog.LevelError
	case r.URL.Path == "/health" || r.URL.Path == "/ready" || r.URL.Path == MetricsPath:
		level = slog.LevelDebug
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", status),
		slog.Duration("duration", d),
		slog.Int64("bytes", rec.bytes),
	}
	if !who.trusted() {
		attrs = append(attrs, slog.String("resource", who.resource))
	}
	if gone {
		attrs = append(attrs, slog.String("error", "client closed request"))
		if rec.status != 0 {
			attrs = append(attrs, slog.Int("status_sent", rec.status))
		}
	}
	s.logger.LogAttrs(r.Context(), level, "request", attrs...)
	return status
}

// recorder notes the status and size of a response, and whether a write
// failed. Before each write it moves the connection's write deadline to
// writeTimeout from now: a client that stops reading cannot hold a
// request, while a stream may last as long as it keeps flowing (a global
// http.Server.WriteTimeout would cut it). It passes Flush on (and the rest
// through Unwrap, for http.ResponseController).
type recorder struct {
	http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration
	status       int
	bytes        int64
	writeErr     error
}

func (r *recorder) extendDeadline() {
	if r.writeTimeout > 0 {
		_ = r.rc.SetWriteDeadline(time.Now().Add(r.writeTimeout))
	}
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.extendDeadline()
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return n, err
}

// FlushError flushes, as http.ResponseController.Flush calls it.
func (r *recorder) FlushError() error {
	r.extendDeadline()
	err := r.rc.Flush()
	if err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	return err
}

// Flush is FlushError for callers of http.Flusher.
func (r *recorder) Flush() { _ = r.FlushError() }

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
