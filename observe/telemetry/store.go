package telemetry

import (
	"context"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// Store returns s, each call timed in keel_store_duration_seconds. What
// s implements of memory.ThreadStarter and processor.RefusalLedger, the
// returned store implements too (the ledger's calls untimed), so that
// agents and the remembered refusals use it as they would s. Store calls
// are not traced: a run makes three or more, and their spans would cost
// every traced request more than the rest of its spans (their time shows
// in the run's span and in the metric). With metrics off it returns s.
func (t *Telemetry) Store(s memory.Store) memory.Store {
	if t == nil || t.metrics == nil {
		return s
	}
	base := &store{Store: s, t: t}
	starter, isStarter := s.(memory.ThreadStarter)
	ledger, isLedger := s.(processor.RefusalLedger)
	switch {
	case isStarter && isLedger:
		return &starterLedgerStore{starterStore{base, starter}, ledger}
	case isStarter:
		return &starterStore{base, starter}
	case isLedger:
		return &ledgerStore{base, ledger}
	}
	return base
}

type store struct {
	memory.Store
	t *Telemetry
}

// Unwrap returns the store it observes, whose other capabilities (a turn
// queue, thread locks, an event bus) callers find there
// ([memory.Capability]).
func (s *store) Unwrap() memory.Store { return s.Store }

type starterStore struct {
	*store
	starter memory.ThreadStarter
}

type ledgerStore struct {
	*store
	processor.RefusalLedger
}

type starterLedgerStore struct {
	starterStore
	processor.RefusalLedger
}

// storeCall is one store call under way.
type storeCall struct {
	t     *Telemetry
	op    string
	start time.Time
}

func (s *store) begin(op string) storeCall {
	return storeCall{t: s.t, op: op, start: time.Now()}
}

func (c storeCall) end(err error) {
	c.t.metrics.store.WithLabelValues(c.op, errorClass(err)).Observe(time.Since(c.start).Seconds())
}

func (s *store) CreateThread(ctx context.Context, th memory.Thread) (memory.Thread, error) {
	c := s.begin("create_thread")
	out, err := s.Store.CreateThread(ctx, th)
	c.end(err)
	return out, err
}

func (s *store) GetThread(ctx context.Context, resourceID, threadID string) (memory.Thread, error) {
	c := s.begin("get_thread")
	out, err := s.Store.GetThread(ctx, resourceID, threadID)
	c.end(err)
	return out, err
}

func (s *store) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	c := s.begin("thread_owner")
	out, err := s.Store.ThreadOwner(ctx, threadID)
	c.end(err)
	return out, err
}

func (s *store) ListThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	c := s.begin("list_threads")
	out, err := s.Store.ListThreads(ctx, resourceID, opts)
	c.end(err)
	return out, err
}

func (s *store) UpdateThread(ctx context.Context, th memory.Thread) (memory.Thread, error) {
	c := s.begin("update_thread")
	out, err := s.Store.UpdateThread(ctx, th)
	c.end(err)
	return out, err
}

func (s *store) DeleteThread(ctx context.Context, resourceID, threadID string) error {
	c := s.begin("delete_thread")
	err := s.Store.DeleteThread(ctx, resourceID, threadID)
	c.end(err)
	return err
}

func (s *store) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	c := s.begin("save_messages")
	out, err := s.Store.SaveMessages(ctx, resourceID, threadID, msgs)
	c.end(err)
	return out, err
}

func (s *store) ListMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	c := s.begin("list_messages")
	out, err := s.Store.ListMessages(ctx, resourceID, threadID, opts)
	c.end(err)
	return out, err
}

func (s *starterStore) StartThread(ctx context.Context, th memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	c := s.begin("start_thread")
	out, saved, err := s.starter.StartThread(ctx, th, msgs)
	c.end(err)
	return out, saved, err
}
