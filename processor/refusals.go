package processor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// Defaults of [RefusalOptions].
const (
	// DefaultRefusalExpiry is how long a refusal is remembered: models
	// change, so no refusal counts for ever.
	DefaultRefusalExpiry = 24 * time.Hour
	// DefaultRefusalRefresh is how long [RememberedRefusals] uses what it
	// read from its ledger before reading it again: an entry another
	// process forgot (keel refusals forget, the server's route) stops
	// counting here within that time.
	DefaultRefusalRefresh = 30 * time.Second
)

// RefusalLedger is what [RememberedRefusals] needs of a store that keeps
// which file types each model refused: the part of
// [memory.RefusalLedger] it uses. keel's thread stores (memory.InMemory,
// sqlitestore, pgstore) implement it, so that every process on one
// database shares what each learns.
type RefusalLedger interface {
	// RecordRefusal stores r, replacing the entry of its provider, model
	// and media type.
	RecordRefusal(ctx context.Context, r memory.Refusal) error
	// ListRefusals returns every entry, expired ones included.
	ListRefusals(ctx context.Context) ([]memory.Refusal, error)
	// ForgetRefusals removes the entries key matches (empty fields match
	// any, from the last one back) and says how many it removed.
	ForgetRefusals(ctx context.Context, key memory.RefusalKey) (int, error)
}

// RefusalOptions configure [RememberedRefusals].
type RefusalOptions struct {
	// Expiry is how long a refusal counts after it was learned; 0 means
	// [DefaultRefusalExpiry]. When it has passed, the file is sent to the
	// model again: if the model takes it, the entry is removed.
	Expiry time.Duration
	// Refresh is how long what was read from the ledger is used before it
	// is read again; 0 means [DefaultRefusalRefresh]. What this value
	// records or forgets itself counts at once.
	Refresh time.Duration
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// RememberedRefusals remembers, in a [RefusalLedger], which media types
// each model refused, so that the unsupported-file handler handles such
// a file before the call rather than after a doomed one (see
// [UnsupportedFileOptions]). It reads the whole ledger at most once per
// Refresh and answers from memory in between, so that checking a model
// call costs a map read; records and forgets go to the ledger at once.
//
// One value serves any number of agents and concurrent runs; share one
// per ledger so that what one agent learns counts for the others at once.
type RememberedRefusals struct {
	ledger  RefusalLedger
	expiry  time.Duration
	refresh time.Duration
	now     func() time.Time

	// mu is held by whoever writes: a read of the ledger, a record, a
	// forget. Checks read snap without it.
	mu   sync.Mutex
	snap atomic.Pointer[refusalSnapshot]
}

// refusalSnapshot is what the ledger held when it was last read, with
// this value's own records and forgets since. It is never changed once
// stored: a change makes a new one.
type refusalSnapshot struct {
	loaded time.Time
	models map[modelKey]map[string]memory.Refusal // media type → entry, expired ones included
}

type modelKey struct{ provider, model string }

// NewRememberedRefusals returns remembered refusals kept in ledger. A nil
// ledger is an error.
func NewRememberedRefusals(ledger RefusalLedger, opts RefusalOptions) (*RememberedRefusals, error) {
	if ledger == nil {
		return nil, errors.New("processor: remembered refusals: no ledger given")
	}
	r := &RememberedRefusals{ledger: ledger, expiry: opts.Expiry, refresh: opts.Refresh, now: opts.Now}
	if r.expiry <= 0 {
		r.expiry = DefaultRefusalExpiry
	}
	if r.refresh <= 0 {
		r.refresh = DefaultRefusalRefresh
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r, nil
}

// Expiry returns how long a refusal counts after it was learned.
func (r *RememberedRefusals) Expiry() time.Duration { return r.expiry }

// Refused returns the entry by which the model refuses files of
// mediaType (normalised), if one counts now. When what was read from the
// ledger is older than Refresh, the ledger is read again first; an error
// reading it is returned with what was known before.
func (r *RememberedRefusals) Refused(ctx context.Context, provider, model, mediaType string) (memory.Refusal, bool, error) {
	entries, now, err := r.entries(ctx, provider, model)
	ref, ok := entries[mediaType]
	if !ok || ref.Expired(now) {
		return memory.Refusal{}, false, err
	}
	return ref, true, err
}

// entries returns the model's entries, expired ones included, and the
// time they are judged at. The map must not be changed.
func (r *RememberedRefusals) entries(ctx context.Context, provider, model string) (map[string]memory.Refusal, time.Time, error) {
	now := r.now()
	s := r.snap.Load()
	var err error
	if s == nil || r.stale(s, now) {
		s, err = r.reload(ctx, s, now)
	}
	return s.models[modelKey{provider, model}], now, err
}

func (r *RememberedRefusals) stale(s *refusalSnapshot, now time.Time) bool {
	return now.Sub(s.loaded) >= r.refresh || now.Before(s.loaded)
}

// reload reads the ledger into a new snapshot. A caller with a snapshot
// does not wait for another that is reading already: it uses the one it
// has.
func (r *RememberedRefusals) reload(ctx context.Context, old *refusalSnapshot, now time.Time) (*refusalSnapshot, error) {
	if old == nil {
		r.mu.Lock()
	} else if !r.mu.TryLock() {
		return old, nil
	}
	defer r.mu.Unlock()
	if cur := r.snap.Load(); cur != nil && !r.stale(cur, now) {
		return cur, nil // read meanwhile
	}
	if old == nil {
		old = &refusalSnapshot{}
	}
	list, err := r.ledger.ListRefusals(ctx)
	if err != nil {
		if ctx.Err() == nil {
			// Keep what was known, and do not ask a failing ledger again
			// at every call: once per Refresh is enough.
			r.snap.Store(&refusalSnapshot{loaded: now, models: old.models})
		}
		return old, fmt.Errorf("processor: read remembered refusals: %w", err)
	}
	s := &refusalSnapshot{loaded: now, models: make(map[modelKey]map[string]memory.Refusal)}
	for _, ref := range list {
		k := modelKey{ref.Provider, ref.Model}
		if s.models[k] == nil {
			s.models[k] = make(map[string]memory.Refusal)
		}
		s.models[k][ref.MediaType] = ref
	}
	r.snap.Store(s)
	return s, nil
}

// record remembers that the model refused files of mediaType (normalised)
// now, for Expiry, with the evidence.
func (r *RememberedRefusals) record(ctx context.Context, provider, model, mediaType string, status int, reason string) error {
	now := r.now()
	ref := memory.Refusal{Provider: provider, Model: model, MediaType: mediaType, LearnedAt: now, ExpiresAt: now.Add(r.expiry),
		Status: status, Reason: shortReason(reason)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ledger.RecordRefusal(ctx, ref); err != nil {
		return fmt.Errorf("processor: remember that %s/%s refused %s: %w", provider, model, mediaType, err)
	}
	r.change(func(models map[modelKey]map[string]memory.Refusal) {
		k := modelKey{provider, model}
		types := maps.Clone(models[k])
		setIn(&types, mediaType, ref)
		models[k] = types
	})
	return nil
}

// Forget removes the entries key matches, from the ledger and at once
// from what this value knows, and says how many the ledger removed. An
// empty MediaType matches every type of the model, an empty Model every
// model of the provider, and an empty key everything.
func (r *RememberedRefusals) Forget(ctx context.Context, key memory.RefusalKey) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, err := r.ledger.ForgetRefusals(ctx, key)
	if err != nil {
		return n, fmt.Errorf("processor: forget remembered refusals: %w", err)
	}
	key.MediaType = keel.NormalizeMediaType(key.MediaType) // as the ledger keeps it
	r.change(func(models map[modelKey]map[string]memory.Refusal) {
		for k, types := range models {
			if key.Provider != "" && k.provider != key.Provider || key.Model != "" && k.model != key.Model {
				continue
			}
			if key.MediaType == "" {
				delete(models, k)
				continue
			}
			if _, ok := types[key.MediaType]; ok {
				types = maps.Clone(types)
				delete(types, key.MediaType)
				models[k] = types
			}
		}
	})
	return n, nil
}

// List returns every entry of the ledger, expired ones included, read
// now; what this value knows is refreshed with it.
func (r *RememberedRefusals) List(ctx context.Context) ([]memory.Refusal, error) {
	list, err := r.ledger.ListRefusals(ctx)
	if err != nil {
		return nil, fmt.Errorf("processor: list remembered refusals: %w", err)
	}
	return list, nil
}

// change applies fn to a copy of the snapshot's models and stores it, if
// there is a snapshot: without one, the next check reads the ledger,
// changes included. r.mu must be held. fn must copy an inner map before
// changing it.
func (r *RememberedRefusals) change(fn func(map[modelKey]map[string]memory.Refusal)) {
	s := r.snap.Load()
	if s == nil {
		return
	}
	models := maps.Clone(s.models)
	if models == nil {
		models = make(map[modelKey]map[string]memory.Refusal)
	}
	fn(models)
	r.snap.Store(&refusalSnapshot{loaded: s.loaded, models: models})
}

// shortReason makes a reason a ledger keeps: valid UTF-8 without NUL, cut
// to [memory.MaxRefusalReason] bytes on a character boundary. The
// provider's message is not to be trusted to be either.
func shortReason(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= memory.MaxRefusalReason {
		return s
	}
	cut := memory.MaxRefusalReason
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut]
}
