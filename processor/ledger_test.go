package processor_test

import (
	"context"
	"sync"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// mapLedger is a refusal ledger in a map.
type mapLedger struct {
	mu      sync.Mutex
	entries map[processor.RefusalKey]processor.Refusal
}

func newMapLedger() *mapLedger {
	return &mapLedger{entries: make(map[processor.RefusalKey]processor.Refusal)}
}

func (l *mapLedger) RecordRefusal(_ context.Context, r processor.Refusal) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries[processor.RefusalKey{Provider: r.Provider, Model: r.Model, MediaType: r.MediaType}] = r
	return nil
}

func (l *mapLedger) ListRefusals(context.Context) ([]processor.Refusal, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []processor.Refusal{}
	for _, r := range l.entries {
		out = append(out, r)
	}
	return out, nil
}

func (l *mapLedger) ForgetRefusals(_ context.Context, key processor.RefusalKey) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k := range l.entries {
		if (key.Provider == "" || k.Provider == key.Provider) && (key.Model == "" || k.Model == key.Model) &&
			(key.MediaType == "" || k.MediaType == key.MediaType) {
			delete(l.entries, k)
			n++
		}
	}
	return n, nil
}

// countingLedger counts the calls to a ledger, and fails them with fail
// when it is set.
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

func (c *countingLedger) RecordRefusal(ctx context.Context, r processor.Refusal) error {
	if err := c.count(&c.records); err != nil {
		return err
	}
	return c.next.RecordRefusal(ctx, r)
}

func (c *countingLedger) ListRefusals(ctx context.Context) ([]processor.Refusal, error) {
	if err := c.count(&c.lists); err != nil {
		return nil, err
	}
	return c.next.ListRefusals(ctx)
}

func (c *countingLedger) ForgetRefusals(ctx context.Context, key processor.RefusalKey) (int, error) {
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
