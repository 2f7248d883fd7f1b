package server

import (
	"context"
	"sync"
)

// turnQueue runs the turns sent to each thread with send-message one at
// a time, in the order they came. The zero value is ready; it is safe for
// concurrent use.
type turnQueue struct {
	mu      sync.Mutex
	threads map[threadKey]*threadTurns
}

// threadTurns is one thread's turns: the running one and those waiting.
// A thread with neither is removed, so that idle threads cost nothing.
type threadTurns struct {
	queue   []*turn
	running *turn
}

// turn is one message sent to a thread, waiting or running.
type turn struct {
	runID  string
	run    func(ctx context.Context)
	cancel context.CancelFunc // set once it runs
}

// enqueue adds a turn to k; it runs at once when the thread is idle, else
// after the turns before it. It reports whether the thread was idle.
func (q *turnQueue) enqueue(k threadKey, tr *turn) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.threads == nil {
		q.threads = make(map[threadKey]*threadTurns)
	}
	t := q.threads[k]
	if t == nil {
		t = &threadTurns{}
		q.threads[k] = t
	}
	if t.running != nil {
		t.queue = append(t.queue, tr)
		return false
	}
	ctx := t.start(tr)
	go q.work(k, t, tr, ctx)
	return true
}

// start makes tr the running turn; the queue's lock is held.
func (t *threadTurns) start(tr *turn) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	tr.cancel = cancel
	t.running = tr
	return ctx
}

// work runs tr, then k's turns waiting after it, one after another.
func (q *turnQueue) work(k threadKey, t *threadTurns, tr *turn, ctx context.Context) {
	for {
		tr.run(ctx)
		tr.cancel()
		q.mu.Lock()
		if len(t.queue) == 0 {
			t.running = nil
			delete(q.threads, k)
			q.mu.Unlock()
			return
		}
		tr = t.queue[0]
		t.queue = t.queue[1:]
		ctx = t.start(tr)
		q.mu.Unlock()
	}
}

// abort stops k's running turn, if any (and only if its run ID is
// expected, when expected is not ""); the turns waiting after it still
// run. It reports whether a turn was stopped.
func (q *turnQueue) abort(k threadKey, expected string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.threads[k]
	if t == nil || t.running == nil || expected != "" && t.running.runID != expected {
		return false
	}
	t.running.cancel()
	return true
}
