package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// RecordRefusal implements [RefusalLedger.RecordRefusal].
func (s *InMemory) RecordRefusal(ctx context.Context, r Refusal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := r.Normalize()
	if err != nil {
		return fmt.Errorf("memory: record refusal: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals[r.Key()] = r
	return nil
}

// Refusals implements [RefusalLedger.Refusals].
func (s *InMemory) Refusals(ctx context.Context, provider, model string, now time.Time) ([]Refusal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key, err := lookupKey(provider, model)
	if err != nil {
		return nil, fmt.Errorf("memory: refusals: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []Refusal{}
	for k, r := range s.refusals {
		if k.Provider == key.Provider && k.Model == key.Model && !r.Expired(now) {
			out = append(out, r)
		}
	}
	sortRefusals(out)
	return out, nil
}

// lookupKey checks the provider and model of a lookup.
func lookupKey(provider, model string) (RefusalKey, error) {
	key, err := RefusalKey{Provider: provider, Model: model}.Normalize()
	if err == nil && (provider == "" || model == "") {
		err = fmt.Errorf("%w: a lookup needs a provider and a model", ErrInvalid)
	}
	return key, err
}

// ListRefusals implements [RefusalLedger.ListRefusals].
func (s *InMemory) ListRefusals(ctx context.Context) ([]Refusal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := slices.AppendSeq([]Refusal{}, maps.Values(s.refusals))
	sortRefusals(out)
	return out, nil
}

// ForgetRefusals implements [RefusalLedger.ForgetRefusals].
func (s *InMemory) ForgetRefusals(ctx context.Context, key RefusalKey) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	key, err := key.Normalize()
	if err != nil {
		return 0, fmt.Errorf("memory: forget refusals: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k := range s.refusals {
		if (key.Provider == "" || k.Provider == key.Provider) &&
			(key.Model == "" || k.Model == key.Model) &&
			(key.MediaType == "" || k.MediaType == key.MediaType) {
			delete(s.refusals, k)
			n++
		}
	}
	return n, nil
}

// sortRefusals orders rs by provider, model and media type, as the SQL
// stores list them.
func sortRefusals(rs []Refusal) {
	slices.SortFunc(rs, func(a, b Refusal) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model), cmp.Compare(a.MediaType, b.MediaType))
	})
}
