package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/keel-go/keel/memory"
)

// busTopic is the topic of thread chunks on a store's event bus.
const busTopic = "keel.thread"

// busQueue bounds the chunks waiting to go to the other servers: a bus
// that falls that far behind loses chunks (their subscribers there miss
// them and see the turn in the thread once it is stored), rather than
// slow the runs.
const busQueue = 4096

// busBatch is the most chunks sent in one Publish, which is one round
// trip and one transaction on PostgreSQL.
const busBatch = 64

// threadBus carries thread chunks between the servers sharing a store
// that is a [memory.EventBus] (PostgreSQL's, by LISTEN/NOTIFY): each
// server publishes the chunks of the turns it runs, and delivers those of
// the others to its own subscribers. A chunk is "origin agent resource
// thread\n" and the encoded block; a server skips its own, which it
// delivered at once. One goroutine publishes, in order, so that a turn's
// chunks reach the other servers in the order they were made.
type threadBus struct {
	bus     memory.EventBus
	origin  string
	hub     *threadEvents
	logger  *slog.Logger
	dropped atomic.Int64

	mu     sync.Mutex
	out    chan memory.Event
	closed bool

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startBus starts carrying h's chunks over bus until stop.
func (h *threadEvents) startBus(bus memory.EventBus, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	b := &threadBus{bus: bus, origin: memory.NewID(), hub: h, logger: logger, out: make(chan memory.Event, busQueue), cancel: cancel}
	b.wg.Add(2)
	go b.publishing(ctx)
	go b.listening(ctx)
	h.mu.Lock()
	h.bus = b
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		h.bus = nil
		h.mu.Unlock()
		b.mu.Lock()
		b.closed = true
		close(b.out) // the publisher sends what is left, then ends
		b.mu.Unlock()
		b.wg.Wait()
	}
}

// send queues block, a chunk of k, for the other servers.
func (b *threadBus) send(k threadKey, block []byte) {
	var p bytes.Buffer
	p.Grow(len(b.origin) + len(k.agent) + len(k.resource) + len(k.thread) + 4 + len(block))
	for _, s := range []string{b.origin, " ", k.agent, " ", k.resource, " ", k.thread, "\n"} {
		p.WriteString(s)
	}
	p.Write(block)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return // stopped meanwhile
	}
	select {
	case b.out <- memory.Event{Topic: busTopic, Payload: p.Bytes()}:
	default:
		if n := b.dropped.Add(1); n == 1 || n%1000 == 0 {
			b.logger.Warn("server: the event bus falls behind: chunks for other servers' subscribers dropped", "dropped", n)
		}
	}
}

// publishing sends the queued chunks, in order, a batch at a time, until
// the queue is closed and empty.
func (b *threadBus) publishing(ctx context.Context) {
	defer b.wg.Done()
	defer b.cancel() // then the listener ends too
	batch := make([]memory.Event, 0, busBatch)
	for ev := range b.out {
		batch = append(batch[:0], ev)
	more:
		for len(batch) < busBatch {
			select {
			case ev, ok := <-b.out:
				if !ok {
					break more
				}
				batch = append(batch, ev)
			default:
				break more
			}
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := b.bus.Publish(pctx, batch...); err != nil {
			b.logger.Warn("server: publish thread events to the other servers", "events", len(batch), "err", err)
		}
		cancel()
	}
}

// listening delivers the other servers' chunks to this one's
// subscribers, listening again after a lost connection.
func (b *threadBus) listening(ctx context.Context) {
	defer b.wg.Done()
	for ctx.Err() == nil {
		err := b.bus.Listen(ctx, b.receive)
		if ctx.Err() != nil {
			return
		}
		b.logger.Warn("server: listen for other servers' thread events: listening again in 1s", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// receive delivers a chunk another server published.
func (b *threadBus) receive(ev memory.Event) {
	if ev.Topic != busTopic {
		return
	}
	head, block, ok := bytes.Cut(ev.Payload, []byte("\n"))
	f := strings.Fields(string(head))
	if !ok || len(f) != 4 || f[0] == b.origin {
		return
	}
	b.hub.deliver(threadKey{agent: f[1], resource: f[2], thread: f[3]}, block)
}
