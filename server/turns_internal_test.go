package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// The thread of a tool call comes from Mastra's requestContext:
// mastra__threadId when set, else threadId; an empty or non-string value
// names none.
func TestContextThread(t *testing.T) {
	tests := []struct {
		name string
		rc   map[string]any
		want string
	}{
		{"mastra's key", map[string]any{"mastra__threadId": "t1"}, "t1"},
		{"mastra's key first", map[string]any{"mastra__threadId": "t1", "threadId": "t2"}, "t1"},
		{"mastra's key empty", map[string]any{"mastra__threadId": "", "threadId": "t2"}, "t2"},
		{"threadId alone", map[string]any{"threadId": "t2"}, "t2"},
		{"not a string", map[string]any{"mastra__threadId": 7}, ""},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contextThread(tt.rc); got != tt.want {
				t.Errorf("Got(contextThread(%v)) = %q; want %q", tt.rc, got, tt.want)
			}
		})
	}
}

// turnRecorder is a turns' run that records the turns it ran and takes
// each off the queue, as the server's does once the message is stored.
type turnRecorder struct {
	mu  sync.Mutex
	ran []string
}

func (r *turnRecorder) run(q *turns) func(context.Context, memory.QueuedTurn) {
	return func(ctx context.Context, t memory.QueuedTurn) {
		r.mu.Lock()
		r.ran = append(r.ran, t.ID)
		r.mu.Unlock()
		_ = q.queue.RemoveTurn(ctx, t.ID)
	}
}

func (r *turnRecorder) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		got := strings.Join(r.ran, ",")
		r.mu.Unlock()
		if got == strings.Join(want, ",") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Got(turns run) = %q; want %q", got, strings.Join(want, ","))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func queuedTurn(id, thread string) memory.QueuedTurn {
	return memory.QueuedTurn{ID: id, AgentID: "assistant", ResourceID: "r", ThreadID: thread,
		Message: keel.Message{ID: "m-" + id, Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "hello"}}}}
}

func stopTurns(q *turns) {
	q.cancel()
	q.wg.Wait()
}

// A server that starts with turns left in its store's queue says so in
// its log, and runs them; with none it says nothing.
func TestRecoverSaysWhatItRuns(t *testing.T) {
	for _, queued := range []int{0, 2} {
		var log bytes.Buffer
		q := newTurns(memory.NewInMemory(), memory.QueueLimits{}, slog.New(slog.NewTextHandler(&log, nil)))
		var rec turnRecorder
		q.run = rec.run(q)
		var want []string
		for i := range queued {
			tt := queuedTurn("turn-"+string(rune('a'+i)), "thread-"+string(rune('a'+i)))
			if err := q.queue.QueueTurn(context.Background(), tt, q.limits); err != nil {
				t.Fatal(err)
			}
			want = append(want, tt.ID)
		}
		q.recover(context.Background())
		if queued > 0 {
			// Each thread has its own worker: the order between them is free.
			deadline := time.Now().Add(10 * time.Second)
			for {
				rec.mu.Lock()
				n := len(rec.ran)
				rec.mu.Unlock()
				if n == queued || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		stopTurns(q)
		if len(rec.ran) != queued {
			t.Errorf("Got(turns run after a start with %d queued) = %q; want %q", queued, rec.ran, want)
		}
		said := strings.Contains(log.String(), "running queued turns")
		if said != (queued > 0) || queued > 0 && !strings.Contains(log.String(), "threads=2") {
			t.Errorf("Got(log after a start with %d queued) = %q; want the queued turns told only when there are some, with their threads", queued, log.String())
		}
	}
}

// emptyOnce is a queue that, the first time it finds a thread's queue
// empty, has a turn queued for that thread just then: as when a message
// comes in while the worker is between its last look and its end.
type emptyOnce struct {
	memory.TurnQueue
	once  sync.Once
	added func()
}

func (e *emptyOnce) NextTurn(ctx context.Context, threadID string) (memory.QueuedTurn, error) {
	t, err := e.TurnQueue.NextTurn(ctx, threadID)
	if errors.Is(err, memory.ErrNotFound) {
		e.once.Do(e.added)
	}
	return t, err
}

// A turn queued while the thread's worker is finding the queue empty is
// run by that worker, which looks again before it ends, rather than left
// waiting for the next message or the next start.
func TestWorkerLooksAgainBeforeItEnds(t *testing.T) {
	q := newTurns(memory.NewInMemory(), memory.QueueLimits{}, slog.New(slog.DiscardHandler))
	defer stopTurns(q)
	var rec turnRecorder
	q.run = rec.run(q)
	eq := &emptyOnce{TurnQueue: q.queue}
	eq.added = func() {
		if err := q.add(context.Background(), queuedTurn("turn-2", "thread-1")); err != nil {
			t.Error(err)
		}
	}
	q.queue = eq
	if err := q.add(context.Background(), queuedTurn("turn-1", "thread-1")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "turn-1", "turn-2")
}

// A turn that ended can no longer be aborted, and the end of an older
// turn of the thread leaves the newer one abortable.
func TestAbortOnlyWhatRuns(t *testing.T) {
	q := newTurns(memory.NewInMemory(), memory.QueueLimits{}, slog.New(slog.DiscardHandler))
	defer stopTurns(q)
	k := threadKey{agent: "assistant", resource: "r", thread: "t1"}
	_, cancel1 := context.WithCancel(context.Background())
	defer cancel1()
	ended := q.started(k, "run-1", cancel1)
	ended()
	if q.abort(k, "") {
		t.Errorf("Got(abort after the turn ended) = true; want false: nothing runs")
	}
	older := q.started(k, "run-2", cancel1)
	ctx3, cancel3 := context.WithCancel(context.Background())
	defer cancel3()
	_ = q.started(k, "run-3", cancel3) // run-3 took the thread's place
	older()
	if q.abort(k, "run-2") {
		t.Errorf("Got(abort of run-2 once run-3 runs) = true; want false")
	}
	if !q.abort(k, "run-3") || ctx3.Err() == nil {
		t.Errorf("Got(abort of the running run-3) not cancelled; want it cancelled")
	}
}
