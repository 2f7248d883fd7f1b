package server

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/keel-go/keel"
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

// sendMessageBody is what Studio sends: the message, whose thread, and
// the options of the turn when the agent is idle.
type sendMessageBody struct {
	Message *struct {
		// Contents is a string or an array of content parts.
		Contents json.RawMessage `json:"contents"`
		Metadata map[string]any  `json:"metadata"`
	} `json:"message"`
	threadRef
	IfIdle *struct {
		StreamOptions *runOptionsBody `json:"streamOptions"`
	} `json:"ifIdle"`
	StreamOptions *runOptionsBody `json:"streamOptions"`
}

type runOptionsBody struct {
	MaxSteps       int            `json:"maxSteps"`
	RequestContext map[string]any `json:"requestContext"`
}

// signal is the user's message as Mastra echoes it.
type signal struct {
	Contents   json.RawMessage `json:"contents"`
	Metadata   map[string]any  `json:"metadata,omitempty"`
	Type       string          `json:"type"`
	TagName    string          `json:"tagName"`
	ID         string          `json:"id"`
	AcceptedAt jsonTime        `json:"acceptedAt"`
	CreatedAt  jsonTime        `json:"createdAt"`
	Created    bool            `json:"__isCreatedSignal,omitempty"`
}

// sendMessage answers POST /api/agents/{id}/send-message at once with
// {accepted, runId, signal} and runs the turn through the agent, as
// /stream does, its chunks going to the thread's subscribers. What can be
// told before the turn (a bad body, another resource's thread, a model
// that cannot answer) is answered as an error instead, and nothing runs.
func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request) {
	a, ok := s.agent(w, r)
	if !ok {
		return
	}
	body, e := s.readBody(w, r)
	var b sendMessageBody
	if e == nil {
		e = decodeJSON(body, &b)
	}
	var msgs []keel.Message
	if e == nil {
		if b.Message == nil || len(b.Message.Contents) == 0 {
			e = badRequest("invalid request body", Issue{Field: "message.contents", Message: "is required: a string or an array of parts"})
		} else {
			var contents any
			if err := json.Unmarshal(b.Message.Contents, &contents); err != nil {
				e = badRequest("invalid request body", Issue{Field: "message.contents", Message: err.Error()})
			} else {
				msgs, e = decodeMessages([]any{map[string]any{"role": "user", "content": contents}}, s.cfg.MaxFiles)
			}
			if e == nil && blank(msgs[0]) {
				e = badRequest("invalid request body", Issue{Field: "message.contents", Message: "is empty: send some text or a file"})
			}
		}
	}
	if e != nil {
		writeRequestError(w, e)
		return
	}
	opts := b.StreamOptions
	if b.IfIdle != nil && b.IfIdle.StreamOptions != nil {
		opts = b.IfIdle.StreamOptions
	}
	if opts == nil {
		opts = &runOptionsBody{}
	}
	k, ok := s.threadOf(w, r, a, &b.threadRef, contextResource(opts.RequestContext))
	if !ok {
		return
	}
	if err := unavailableModel(a); err != nil {
		s.writeRunError(w, r, err)
		return
	}
	now := time.Now()
	msg := msgs[0]
	msg.ID, msg.CreatedAt, msg.Metadata = memory.NewID(), now, b.Message.Metadata
	sig := signal{Contents: b.Message.Contents, Metadata: b.Message.Metadata, Type: "user", TagName: "user",
		ID: msg.ID, AcceptedAt: jsonTime(now), CreatedAt: jsonTime(now)}
	runID := memory.NewID()
	runOpts := []agent.RunOption{agent.WithThread(k.thread), agent.WithResource(k.resource), agent.WithRunID(runID)}
	if opts.MaxSteps > 0 {
		runOpts = append(runOpts, agent.WithMaxSteps(opts.MaxSteps))
	}
	sink := &threadSink{hub: &s.events, key: k, run: runID, afterStart: func() any {
		return map[string]any{"type": "data-user-message", "data": sig, "transient": true, "runId": runID}
	}}
	s.turns.enqueue(k, &turn{runID: runID, run: func(ctx context.Context) {
		s.runTurn(ctx, r, a, sink, []keel.Message{msg}, runOpts)
	}})
	created := sig
	created.Created = true
	writeJSON(w, http.StatusOK, map[string]any{"accepted": true, "runId": runID, "signal": created})
}

// runTurn runs one turn sent to a thread and publishes its chunks, as
// /stream writes them; r is the request that sent it, for the logs.
func (s *Server) runTurn(ctx context.Context, r *http.Request, a *agent.Agent, sink *threadSink, msgs []keel.Message, opts []agent.RunOption) {
	next, stop := iter.Pull2(a.Stream(ctx, msgs, opts...))
	defer stop()
	ev, err, ok := next()
	if !ok {
		err = errors.New("server: stream ended before it started")
	}
	if err != nil {
		// It failed before its start: the subscribers get a start of
		// their own, so that the failure shows on its turn.
		ev = agent.Event{Type: agent.EventStart, RunID: sink.runID(), ThreadID: sink.key.thread, ResourceID: sink.key.resource}
		st := newStreamState(sink, a, ev)
		st.event(ev)
		st.fail(err)
		return
	}
	s.relay(r, newStreamState(sink, a, ev), ev, nil, next)
}

// blank tells a message with neither text nor any other part.
func blank(m keel.Message) bool {
	for _, p := range m.Parts {
		if t, ok := p.(keel.TextPart); !ok || strings.TrimSpace(t.Text) != "" {
			return false
		}
	}
	return true
}
