package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
)

// Defaults of the turn queue's bounds ([Config].TurnQueue).
const (
	// DefaultQueuedPerThread is how many send-message turns may wait in
	// one thread.
	DefaultQueuedPerThread = 8
	// DefaultQueuedPerResource is how many may wait in all the threads
	// of one resource.
	DefaultQueuedPerResource = 32
)

// turns runs the turns of each thread one at a time and in order, on
// this server and on every server sharing its store (see "Turns" in the
// package documentation).
//
// Every turn in a thread holds the thread's lock while it runs: the
// store's own ([memory.ThreadLocker], PostgreSQL's advisory lock, for
// every server on the database) or, for a store of one process, one in
// this process. Mastra Studio's turns (send-message) are queued in the
// store ([memory.TurnQueue]) before they are accepted, and a worker per
// thread runs them, oldest first, each under the lock; a turn leaves the
// queue once the agent has stored its message, so that a server that
// stops or dies leaves every accepted turn either in the thread or in
// the queue, for the next server that starts to run.
type turns struct {
	queue  memory.TurnQueue
	limits memory.QueueLimits
	locker memory.ThreadLocker
	logger *slog.Logger
	// run runs a queued turn; the worker holds the thread's lock.
	run func(ctx context.Context, t memory.QueuedTurn)

	// ctx ends when the server stops for good: running turns are
	// cancelled, and no worker starts another.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	draining bool                       // the server stops: no turn starts
	queued   map[string]bool            // turns this server queued and has not run
	workers  map[string]*worker         // by thread ID
	running  map[threadKey]*runningTurn // for abort
}

// worker drains one thread's queue; again says that a turn was queued
// after it last looked.
type worker struct{ again bool }

// runningTurn is a queued turn being run.
type runningTurn struct {
	runID  string
	cancel context.CancelFunc
}

// newTurns returns the turns of a server whose store is mem: its queue
// and locks when it has them, else a queue and locks in this process
// (lost with it).
func newTurns(mem memory.Store, limits memory.QueueLimits, logger *slog.Logger) *turns {
	q := &turns{limits: limits, logger: logger, workers: map[string]*worker{}, running: map[threadKey]*runningTurn{},
		queued: map[string]bool{}}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	if tq, ok := memory.Capability[memory.TurnQueue](mem); ok {
		q.queue = tq
	} else {
		q.queue = memory.NewInMemory()
	}
	if l, ok := memory.Capability[memory.ThreadLocker](mem); ok {
		q.locker = l
	} else {
		q.locker = &memory.LocalLocks{}
	}
	if q.limits.PerThread == 0 {
		q.limits.PerThread = DefaultQueuedPerThread
	}
	if q.limits.PerResource == 0 {
		q.limits.PerResource = DefaultQueuedPerResource
	}
	return q
}

// lock takes threadID's lock for a turn, waiting for the turn running
// there, if any, until ctx ends.
func (q *turns) lock(ctx context.Context, threadID string) (func(), error) {
	return q.locker.LockThread(ctx, threadID)
}

// add queues t, then makes sure a worker runs its thread's queue.
func (q *turns) add(ctx context.Context, t memory.QueuedTurn) error {
	if err := q.queue.QueueTurn(ctx, t, q.limits); err != nil {
		return err
	}
	q.mu.Lock()
	if len(q.queued) >= 4096 {
		// Turns another server ran are never forgotten here: past this
		// many, forget them all, which only costs the next turns the
		// check that their message is not stored yet.
		clear(q.queued)
	}
	q.queued[t.ID] = true
	q.mu.Unlock()
	q.kick(t.ThreadID)
	return nil
}

// kick starts a worker for threadID's queue unless one runs; a running
// one is told to look again before it stops.
func (q *turns) kick(threadID string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.draining || q.ctx.Err() != nil {
		return // stopping: the queue waits for the next start
	}
	if w := q.workers[threadID]; w != nil {
		w.again = true
		return
	}
	w := &worker{}
	q.workers[threadID] = w
	q.wg.Add(1)
	go q.work(threadID, w)
}

// recover starts a worker for every thread with queued turns: those a
// server accepted and did not run before it stopped or died.
func (q *turns) recover(ctx context.Context) {
	ids, err := q.queue.QueuedThreads(ctx)
	if err != nil {
		q.logger.Error("server: find queued turns", "err", err)
		return
	}
	if len(ids) > 0 {
		q.logger.Info("server: running queued turns", "threads", len(ids))
	}
	for _, id := range ids {
		q.kick(id)
	}
}

func (q *turns) work(threadID string, w *worker) {
	defer q.wg.Done()
	for {
		if q.next(threadID) {
			continue
		}
		q.mu.Lock()
		if w.again && q.ctx.Err() == nil {
			w.again = false
			q.mu.Unlock()
			continue
		}
		delete(q.workers, threadID)
		q.mu.Unlock()
		return
	}
}

// next runs threadID's oldest queued turn under the thread's lock, and
// reports whether it found one to run.
func (q *turns) next(threadID string) bool {
	unlock, err := q.lock(q.ctx, threadID)
	if err != nil {
		if q.ctx.Err() == nil {
			q.logger.Error("server: lock thread", "thread", threadID, "err", err)
		}
		return false
	}
	defer unlock()
	q.mu.Lock()
	draining := q.draining
	q.mu.Unlock()
	if draining {
		return false // left queued for the next start
	}
	t, err := q.queue.NextTurn(q.ctx, threadID)
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return false
	case err != nil:
		if q.ctx.Err() == nil {
			// Left queued, for the next message to the thread or the
			// next start to run.
			q.logger.Error("server: read queued turn", "thread", threadID, "err", err)
		}
		return false
	}
	q.run(q.ctx, t)
	return q.ctx.Err() == nil
}

// fresh reports whether this server queued the turn id since it started
// (so that no server can have stored its message yet), and forgets it.
func (q *turns) fresh(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	ok := q.queued[id]
	delete(q.queued, id)
	return ok
}

// started registers the running turn of k, which abort cancels; the
// returned func unregisters it.
func (q *turns) started(k threadKey, runID string, cancel context.CancelFunc) func() {
	q.mu.Lock()
	defer q.mu.Unlock()
	rt := &runningTurn{runID: runID, cancel: cancel}
	q.running[k] = rt
	return func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.running[k] == rt {
			delete(q.running, k)
		}
	}
}

// abort stops k's running turn, if any (and only if its run ID is
// expected, when expected is not ""); the turns waiting after it still
// run. It reports whether a turn was stopped.
func (q *turns) abort(k threadKey, expected string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	rt := q.running[k]
	if rt == nil || expected != "" && rt.runID != expected {
		return false
	}
	rt.cancel()
	return true
}

// stop lets the running turns finish until ctx ends, starting none,
// then cancels those still running and waits for them; the turns still
// queued stay in the store for the next start.
func (q *turns) stop(ctx context.Context) {
	q.mu.Lock()
	q.draining = true
	q.mu.Unlock()
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	q.mu.Lock()
	q.cancel()
	q.mu.Unlock()
	<-done
}

// lockTurn takes the lock of a turn of agent a in resource's thread,
// waiting for the turn running there until ctx ends. Another resource's
// thread is an error wrapping [memory.ErrNotFound] at once, so that no
// caller learns from a wait that such a thread is busy. missing says the
// check found no thread, which the run is then told (see
// [agent.WithNewThread]), so that it does not read the thread again.
func (s *Server) lockTurn(ctx context.Context, a *agent.Agent, resource, threadID string) (unlock func(), missing bool, err error) {
	if mem := a.Config().Memory; mem != nil {
		owner, err := mem.ThreadOwner(ctx, threadID)
		switch {
		case err == nil && owner != resource:
			return nil, false, fmt.Errorf("server: thread %q: %w", threadID, memory.ErrNotFound)
		case errors.Is(err, memory.ErrNotFound):
			missing = true
		case err != nil:
			return nil, false, err
		}
	}
	unlock, err = s.turns.lock(ctx, threadID)
	return unlock, missing, err
}
