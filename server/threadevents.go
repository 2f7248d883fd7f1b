package server

import (
	"context"
	"encoding/json"
	"sync"
)

// subscriberBuffer is how many events a subscriber may lag behind a run
// before it is dropped: a reader that slow is cut, and reconnects, rather
// than hold the run of every other subscriber.
const subscriberBuffer = 256

// threadKey names the subscribers and runs of one agent's thread of one
// resource.
type threadKey struct{ agent, resource, thread string }

// signalHub is where Studio's chat meets its runs: per thread, the
// subscribers of its events and the turns sent to it, run one at a time
// in the order they came. The zero value is ready; it is safe for
// concurrent use.
type signalHub struct {
	mu      sync.Mutex
	threads map[threadKey]*threadSignals
	// closing is closed when the server shuts down: subscriptions never
	// go idle, so they end then, rather than hold the shutdown for its
	// whole grace.
	closing  chan struct{}
	shutOnce sync.Once
}

// done is closed once the server shuts down.
func (h *signalHub) done() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing == nil {
		h.closing = make(chan struct{})
	}
	return h.closing
}

// shutdown ends every subscription (http.Server.RegisterOnShutdown).
func (h *signalHub) shutdown() {
	h.done()
	h.shutOnce.Do(func() { close(h.closing) })
}

// threadSignals is one thread's subscribers and turns. An entry with no
// subscriber and no turn is removed, so that idle threads cost nothing.
type threadSignals struct {
	subs    map[*subscriber]struct{}
	queue   []*turn
	running *turn
}

// subscriber is one open subscription: the events sent to it, each an
// encoded "data: ...\n\n" block shared by every subscriber, and dropped,
// closed when it fell too far behind.
type subscriber struct {
	ch      chan []byte
	dropped chan struct{}
}

// turn is one message sent to a thread, waiting or running.
type turn struct {
	runID  string
	run    func(ctx context.Context)
	cancel context.CancelFunc // set once it runs
}

func (h *signalHub) entry(k threadKey) *threadSignals {
	if h.threads == nil {
		h.threads = make(map[threadKey]*threadSignals)
	}
	t := h.threads[k]
	if t == nil {
		t = &threadSignals{subs: make(map[*subscriber]struct{})}
		h.threads[k] = t
	}
	return t
}

// tidy removes k's entry once nothing uses it; h.mu is held.
func (h *signalHub) tidy(k threadKey, t *threadSignals) {
	if len(t.subs) == 0 && len(t.queue) == 0 && t.running == nil {
		delete(h.threads, k)
	}
}

func (h *signalHub) subscribe(k threadKey) *subscriber {
	sub := &subscriber{ch: make(chan []byte, subscriberBuffer), dropped: make(chan struct{})}
	h.mu.Lock()
	h.entry(k).subs[sub] = struct{}{}
	h.mu.Unlock()
	return sub
}

func (h *signalHub) unsubscribe(k threadKey, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.threads[k]; t != nil {
		delete(t.subs, sub)
		h.tidy(k, t)
	}
}

// publish sends v, one chunk, to every subscriber of k without waiting
// for any: one whose buffer is full is dropped.
func (h *signalHub) publish(k threadKey, v any) {
	h.mu.Lock()
	t := h.threads[k]
	listened := t != nil && len(t.subs) > 0
	h.mu.Unlock()
	if !listened {
		return // nobody to encode it for
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"type": "error", "from": "AGENT",
			"payload": errorPayload{Error: wireError{Message: "server: encode event: " + err.Error(), Name: "Error"}}})
	}
	block := make([]byte, 0, len(b)+8)
	block = append(append(append(block, "data: "...), b...), "\n\n"...)
	h.mu.Lock()
	defer h.mu.Unlock()
	if t = h.threads[k]; t == nil {
		return
	}
	for sub := range t.subs {
		select {
		case sub.ch <- block:
		default:
			delete(t.subs, sub)
			close(sub.dropped)
		}
	}
}

// enqueue adds a turn to k; it runs at once when the thread is idle, else
// after the turns before it. It reports whether the thread was idle.
func (h *signalHub) enqueue(k threadKey, tr *turn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.entry(k)
	if t.running != nil {
		t.queue = append(t.queue, tr)
		return false
	}
	ctx := t.start(tr)
	go h.work(k, t, tr, ctx)
	return true
}

// start makes tr the running turn; the hub's lock is held.
func (t *threadSignals) start(tr *turn) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	tr.cancel = cancel
	t.running = tr
	return ctx
}

// work runs tr, then k's turns waiting after it, one after another.
func (h *signalHub) work(k threadKey, t *threadSignals, tr *turn, ctx context.Context) {
	for {
		tr.run(ctx)
		tr.cancel()
		h.mu.Lock()
		if len(t.queue) == 0 {
			t.running = nil
			h.tidy(k, t)
			h.mu.Unlock()
			return
		}
		tr = t.queue[0]
		t.queue = t.queue[1:]
		ctx = t.start(tr)
		h.mu.Unlock()
	}
}

// abort stops k's running turn, if any (and only if its run ID is
// expected, when expected is not ""); the turns waiting after it still
// run. It reports whether a turn was stopped.
func (h *signalHub) abort(k threadKey, expected string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.threads[k]
	if t == nil || t.running == nil || expected != "" && t.running.runID != expected {
		return false
	}
	t.running.cancel()
	return true
}

// hubSink publishes a run's chunks to the subscribers of its thread; the
// user's message goes right after the start chunk, as Mastra sends it.
// The run goes on whether anyone listens or not: its turn is stored.
type hubSink struct {
	hub      *signalHub
	key      threadKey
	run      string
	afterTop func() any
}

func (s *hubSink) runID() string { return s.run }

func (s *hubSink) event(v any) bool {
	s.hub.publish(s.key, v)
	if c, ok := v.(wireChunk); ok && c.Type == "start" && s.afterTop != nil {
		s.hub.publish(s.key, s.afterTop())
		s.afterTop = nil
	}
	return true
}

// teeSink sends a stream's chunks to its client and to the subscribers of
// its thread; only the client going away ends the stream.
type teeSink struct {
	client eventSink
	thread *hubSink
}

func (s teeSink) event(v any) bool {
	s.thread.event(v)
	return s.client.event(v)
}
