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
	qo := queuedOptions{MaxSteps: opts.MaxSteps, AcceptedAt: now, Metadata: b.Message.Metadata}
	if len(b.Message.Contents) <= maxEchoedContents {
		qo.Contents = b.Message.Contents
	}
	options, err := json.Marshal(qo)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server: encode turn: "+err.Error())
		return
	}
	runID := memory.NewID()
	t := memory.QueuedTurn{ID: runID, AgentID: a.ID(), ResourceID: k.resource, ThreadID: k.thread, Message: msg,
		Options: options, QueuedAt: now}
	// Stored before it is accepted: a server that stops or dies leaves it
	// for the next to run.
	if err := s.turns.add(r.Context(), t); err != nil {
		switch {
		case errors.Is(err, memory.ErrFull):
			writeError(w, http.StatusConflict, "too many messages wait in this thread or for this resource ("+err.Error()+
				"): send it again once the turns before it have run")
		case errors.Is(err, memory.ErrInvalid):
			writeRequestError(w, badRequest(err.Error()))
		default:
			s.storeError(w, r, err)
		}
		return
	}
	created := qo.signal(t)
	created.Created = true
	writeJSON(w, http.StatusOK, map[string]any{"accepted": true, "runId": runID, "signal": created})
}

// maxEchoedContents is the most of a message's contents, as sent, that
// its turn keeps to echo to the subscribers ("data-user-message"); larger
// contents (files inlined as data: URLs) are echoed as the message's text.
const maxEchoedContents = 64 << 10

// queuedOptions is what a queued turn keeps beside its message, to run
// it and echo it as Studio sent it.
type queuedOptions struct {
	MaxSteps   int             `json:"maxSteps,omitempty"`
	AcceptedAt time.Time       `json:"acceptedAt"`
	Contents   json.RawMessage `json:"contents,omitempty"`
	Metadata   map[string]any  `json:"metadata,omitempty"`
}

// signal is t's message as Mastra echoes it.
func (o queuedOptions) signal(t memory.QueuedTurn) signal {
	contents := o.Contents
	if len(contents) == 0 {
		contents, _ = json.Marshal(t.Message.Text())
	}
	return signal{Contents: contents, Metadata: o.Metadata, Type: "user", TagName: "user",
		ID: t.Message.ID, AcceptedAt: jsonTime(o.AcceptedAt), CreatedAt: jsonTime(o.AcceptedAt)}
}

// runQueued runs a queued turn through its agent, as /stream runs one,
// its chunks published to the thread's subscribers with the user's
// message after the start; the worker holds the thread's lock. The turn
// leaves the queue once the agent has stored its message, or when it
// failed before (it would fail again), but not when ctx ended first: the
// server is stopping, and the next start runs it. Once stored, it is
// removed beside the model's call, not before it, and runQueued returns
// only once it is gone, so that the worker never takes it again.
func (s *Server) runQueued(ctx context.Context, t memory.QueuedTurn) {
	remove := func() {
		if err := s.turns.queue.RemoveTurn(context.WithoutCancel(ctx), t.ID); err != nil {
			s.logger.Error("server: remove queued turn", "run", t.ID, "thread", t.ThreadID, "err", err)
		}
	}
	a := s.agents[t.AgentID]
	if a == nil {
		s.logger.Error("server: queued turn of an agent this server does not have: dropped", "agent", t.AgentID, "run", t.ID, "thread", t.ThreadID)
		remove()
		return
	}
	if !s.turns.fresh(t.ID) && s.turnStarted(ctx, a, t) {
		// Its message was stored by a server that died before removing
		// it: running it again would answer it twice.
		remove()
		return
	}
	// The message enters the thread now, after the turns before it and
	// their answers, whenever it was accepted.
	t.Message.CreatedAt = time.Now()
	var o queuedOptions
	if err := json.Unmarshal(t.Options, &o); err != nil {
		s.logger.Warn("server: queued turn's options do not decode: run with the agent's", "run", t.ID, "err", err)
	}
	k := threadKey{agent: t.AgentID, resource: t.ResourceID, thread: t.ThreadID}
	sig := o.signal(t)
	runOpts := []agent.RunOption{agent.WithThread(t.ThreadID), agent.WithResource(t.ResourceID), agent.WithRunID(t.ID)}
	if o.MaxSteps > 0 {
		runOpts = append(runOpts, agent.WithMaxSteps(o.MaxSteps))
	}
	sink := &threadSink{hub: &s.events, key: k, run: t.ID, afterStart: func() any {
		return map[string]any{"type": "data-user-message", "data": sig, "transient": true, "runId": t.ID}
	}}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.turns.started(k, t.ID, cancel)()
	removed := make(chan struct{})
	onStart := func() { go func() { remove(); close(removed) }() }
	if started := s.runTurn(runCtx, a, sink, []keel.Message{t.Message}, runOpts, onStart); started {
		<-removed
	} else if ctx.Err() == nil {
		remove()
	}
}

// turnStarted reports whether t's message is stored in its thread
// already; a store it cannot ask says no.
func (s *Server) turnStarted(ctx context.Context, a *agent.Agent, t memory.QueuedTurn) bool {
	mem := a.Config().Memory
	if mem == nil {
		return false
	}
	page, err := mem.ListMessages(ctx, t.ResourceID, t.ThreadID, memory.ListMessagesOptions{Last: 50})
	if err != nil {
		return false
	}
	for _, m := range page.Messages {
		if m.ID == t.Message.ID {
			return true
		}
	}
	return false
}

// runTurn runs one turn of a thread and publishes its chunks, as /stream
// writes them; onStart is called once the agent has stored the turn's
// input, and runTurn reports whether it was.
func (s *Server) runTurn(ctx context.Context, a *agent.Agent, sink *threadSink, msgs []keel.Message, opts []agent.RunOption, onStart func()) bool {
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
		return false
	}
	onStart()
	s.relay(ctx, newStreamState(sink, a, ev), ev, nil, next)
	return true
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
