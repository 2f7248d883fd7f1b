package processor_test

import (
	"context"
	"sync"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// countingLedger counts the calls to a ledger (a real store's), and
// fails them with fail when it is set.
type countingLedger struct {
	next processor.RefusalLedger

	mu                      sync.Mutex
	lists, records, forgets int
	fail                    error
}

func (c *countingLedger) count(n *int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*n++
	return c.fail
}

func (c *countingLedger) failWith(err error) {
	c.mu.Lock()
	c.fail = err
	c.mu.Unlock()
}

func (c *countingLedger) calls() (lists, records, forgets int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists, c.records, c.forgets
}

func (c *countingLedger) RecordRefusal(ctx context.Context, r memory.Refusal) error {
	if err := c.count(&c.records); err != nil {
		return err
	}
	return c.next.RecordRefusal(ctx, r)
}

func (c *countingLedger) ListRefusals(ctx context.Context) ([]memory.Refusal, error) {
	if err := c.count(&c.lists); err != nil {
		return nil, err
	}
	return c.next.ListRefusals(ctx)
}

func (c *countingLedger) ForgetRefusals(ctx context.Context, key memory.RefusalKey) (int, error) {
	if err := c.count(&c.forgets); err != nil {
		return 0, err
	}
	return c.next.ForgetRefusals(ctx, key)
}

// clock is a time that tests move on.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// namedModel is a model known by its provider and name only.
type namedModel struct {
	keel.Model
	provider, name string
}

func (m namedModel) Provider() string { return m.provider }
func (m namedModel) Name() string     { return m.name }

var (
	flash = namedModel{provider: "google", name: "gemini-2.5-flash"}
	pro   = namedModel{provider: "google", name: "gemini-2.5-pro"}
)
