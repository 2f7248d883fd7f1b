package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/keel-go/keel/memory"
)

// readyTimeout bounds the store check of GET /ready.
const readyTimeout = 5 * time.Second

// Probe ids: GET /ready looks this thread up, which no request can create
// under this resource unless it names it, and finding it changes nothing.
const (
	readyProbeResource = "keel:ready"
	readyProbeThread   = "keel:ready"
)

type probeBody struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// health answers GET /health: the process is up and serving. It needs no
// token (probes carry none) and says nothing more than "ok".
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, probeBody{Status: "ok"})
}

// ready answers GET /ready: 200 when the memory store answers a lookup
// (or there is none), 503 when it fails or takes longer than 5 s. Like
// /health it needs no token; the store's error goes to the log, not to
// the caller.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Memory != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		_, err := s.cfg.Memory.GetThread(ctx, readyProbeResource, readyProbeThread)
		if err != nil && !errors.Is(err, memory.ErrNotFound) {
			if r.Context().Err() == nil {
				s.logger.Error("server: not ready: the memory store does not answer", "err", err)
			}
			writeJSON(w, http.StatusServiceUnavailable, probeBody{Status: "unavailable", Error: "the memory store does not answer: see the server's log"})
			return
		}
	}
	writeJSON(w, http.StatusOK, probeBody{Status: "ok"})
}
