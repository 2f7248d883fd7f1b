package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
)

// Studio's chat runs on Mastra's agent signals, not on /stream: it opens
// POST /api/agents/{id}/threads/subscribe, a Server-Sent Events stream of
// every run on one resource's thread, and sends each message with POST
// /api/agents/{id}/send-message, answered at once while the turn runs;
// its chunks, with a transient "data-user-message" after the start,
// reach every subscriber of the thread. Turns on one thread run one at a
// time, in the order they were sent: a message sent while a turn runs
// waits for it (keel cannot add a message to a running turn, which
// Mastra's send-message does when the agent is busy). queue-message is
// send-message, since every message waits its turn.

// threadRef is the body of subscribe and abort: whose thread.
type threadRef struct {
	ResourceID    string `json:"resourceId"`
	ThreadID      string `json:"threadId"`
	ExpectedRunID string `json:"expectedRunId"`
}

// threadOf reads a threadRef body and binds it to the caller (see
// actFor): the key of the thread, or false when the answer (400, 403, or
// 404 for another resource's thread) was written. extra are more
// resources the request names, after the body's resourceId.
func (s *Server) threadOf(w http.ResponseWriter, r *http.Request, a *agent.Agent, b *threadRef, extra ...string) (threadKey, bool) {
	named, e := namedResource(r)
	var resource string
	if e == nil {
		resource, e = callerOf(r).actFor(append(append([]string{b.ResourceID}, extra...), named)...)
	}
	if e == nil && resource == "" {
		e = errResourceRequired
	}
	if e == nil && (!memory.ValidID(resource) || !memory.ValidID(b.ThreadID)) {
		var issues []Issue
		if !memory.ValidID(resource) {
			issues = append(issues, Issue{Field: "resourceId", Message: idRule})
		}
		if !memory.ValidID(b.ThreadID) {
			issues = append(issues, Issue{Field: "threadId", Message: idRule})
		}
		e = badRequest("invalid request body", issues...)
	}
	if e != nil {
		writeRequestError(w, e)
		return threadKey{}, false
	}
	if mem := a.Config().Memory; mem != nil {
		// A thread not yet made is fine (the first turn makes it);
		// another resource's is "not found", like a missing one on the
		// other routes, and nothing of it is sent.
		owner, err := mem.ThreadOwner(r.Context(), b.ThreadID)
		switch {
		case err == nil && owner != resource:
			writeError(w, http.StatusNotFound, "Thread not found")
			return threadKey{}, false
		case err != nil && !errors.Is(err, memory.ErrNotFound):
			s.storeError(w, r, err)
			return threadKey{}, false
		}
	}
	return threadKey{agent: a.ID(), resource: resource, thread: b.ThreadID}, true
}

// threadRequest reads the body of subscribe or abort and binds it (see
// threadOf); false means the answer was written.
func (s *Server) threadRequest(w http.ResponseWriter, r *http.Request) (threadKey, *threadRef, bool) {
	a, ok := s.agent(w, r)
	if !ok {
		return threadKey{}, nil, false
	}
	body, e := s.readBody(w, r)
	var b threadRef
	if e == nil {
		e = decodeJSON(body, &b)
	}
	if e != nil {
		writeRequestError(w, e)
		return threadKey{}, nil, false
	}
	k, ok := s.threadOf(w, r, a, &b)
	return k, &b, ok
}

// subscribeThread answers POST /api/agents/{id}/threads/subscribe
// {resourceId, threadId}: ": connected", then the chunks of every turn
// sent to the thread until the client goes away. Quiet streams get
// ": ping" every Config.KeepAlive. A subscriber that falls
// subscriberBuffer chunks behind is cut (Studio reconnects).
func (s *Server) subscribeThread(w http.ResponseWriter, r *http.Request) {
	k, _, ok := s.threadRequest(w, r)
	if !ok {
		return
	}
	sub := s.events.subscribe(k)
	defer s.events.unsubscribe(k, sub)
	closing := s.events.done()
	// No keep-alive goroutine of its own: this loop writes the pings, so
	// that an idle subscription is one goroutine.
	sw := openSSE(w, -1, nil)
	defer sw.close()
	if !sw.raw([]byte(": connected\n\n")) {
		return
	}
	var tick <-chan time.Time
	if s.cfg.KeepAlive > 0 {
		t := time.NewTicker(s.cfg.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case block := <-sub.ch:
			if !sw.raw(block) {
				return
			}
		case <-tick:
			if !sw.raw([]byte(": ping\n\n")) {
				return
			}
		case <-sub.dropped:
			return
		case <-closing:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// abortThread answers POST /api/agents/{id}/threads/abort {resourceId,
// threadId, expectedRunId?}: {"aborted": true} when it stopped the
// thread's running turn. The turn ends with an error and a finish.
func (s *Server) abortThread(w http.ResponseWriter, r *http.Request) {
	k, b, ok := s.threadRequest(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"aborted": s.turns.abort(k, b.ExpectedRunID)})
}
