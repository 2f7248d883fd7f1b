package server

import (
	"encoding/json"
	"sync"
)

// subscriberBuffer is how many events a subscriber may lag behind a run
// before it is dropped: a reader that slow is cut, and reconnects, rather
// than hold the run of every other subscriber.
const subscriberBuffer = 256

// threadKey names one agent's thread of one resource: whose events a
// subscription gets, and whose turns run one at a time.
type threadKey struct{ agent, resource, thread string }

// threadEvents is the thread-event hub: per thread, the open
// subscriptions (Mastra Studio's threads/subscribe) and the chunks of
// every turn run on the thread, whichever route sent it (send-message,
// /stream, /generate), published to them, and, through the store's
// event bus when it has one, to the subscribers of every other server
// on the store (see threadbus.go). The zero value is ready; it is safe
// for concurrent use.
type threadEvents struct {
	mu   sync.Mutex
	subs map[threadKey]map[*subscriber]struct{}
	// bus carries the chunks to and from the other servers; nil until
	// Serve starts it.
	bus *threadBus
	// closing is closed when the server shuts down: subscriptions never
	// go idle, so they end then, rather than hold the shutdown for its
	// whole grace.
	closing  chan struct{}
	shutOnce sync.Once
}

// subscriber is one open subscription: the events sent to it, each an
// encoded "data: ...\n\n" block shared by every subscriber, and dropped,
// closed when it fell too far behind.
type subscriber struct {
	ch      chan []byte
	dropped chan struct{}
}

// done is closed once the server shuts down.
func (h *threadEvents) done() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing == nil {
		h.closing = make(chan struct{})
	}
	return h.closing
}

// shutdown ends every subscription (http.Server.RegisterOnShutdown).
func (h *threadEvents) shutdown() {
	h.done()
	h.shutOnce.Do(func() { close(h.closing) })
}

func (h *threadEvents) subscribe(k threadKey) *subscriber {
	sub := &subscriber{ch: make(chan []byte, subscriberBuffer), dropped: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = make(map[threadKey]map[*subscriber]struct{})
	}
	set := h.subs[k]
	if set == nil {
		set = make(map[*subscriber]struct{})
		h.subs[k] = set
	}
	set[sub] = struct{}{}
	return sub
}

// unsubscribe removes sub; a thread nobody listens to leaves nothing
// behind.
func (h *threadEvents) unsubscribe(k threadKey, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.subs[k]; set != nil {
		delete(set, sub)
		if len(set) == 0 {
			delete(h.subs, k)
		}
	}
}

// wanted reports whether k's chunks may have a subscriber: one here, or
// any on the servers the bus reaches.
func (h *threadEvents) wanted(k threadKey) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[k]) > 0 || h.bus != nil
}

// publish sends v, one chunk, to every subscriber of k without waiting
// for any (one whose buffer is full is dropped), and to the other
// servers.
func (h *threadEvents) publish(k threadKey, v any) {
	if !h.wanted(k) {
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
	bus := h.bus
	h.mu.Unlock()
	if bus != nil {
		bus.send(k, block)
	}
	h.deliver(k, block)
}

// deliver sends block to every subscriber of k here.
func (h *threadEvents) deliver(k threadKey, block []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs[k] {
		select {
		case sub.ch <- block:
		default:
			delete(h.subs[k], sub)
			close(sub.dropped)
		}
	}
}

// threadSink publishes a run's chunks to the subscribers of its thread;
// afterStart, when set, is published right after the start chunk (the
// user's message of a send-message turn, as Mastra sends it). The run
// goes on whether anyone listens or not: its turn is stored.
type threadSink struct {
	hub        *threadEvents
	key        threadKey
	run        string
	afterStart func() any
}

func (s *threadSink) runID() string { return s.run }

func (s *threadSink) event(v any) bool {
	s.hub.publish(s.key, v)
	if c, ok := v.(wireChunk); ok && c.Type == "start" && s.afterStart != nil {
		s.hub.publish(s.key, s.afterStart())
		s.afterStart = nil
	}
	return true
}

// teeSink sends a stream's chunks to its client and to the subscribers of
// its thread; only the client going away ends the stream.
type teeSink struct {
	client eventSink
	thread *threadSink
}

func (s teeSink) event(v any) bool {
	s.thread.event(v)
	return s.client.event(v)
}
