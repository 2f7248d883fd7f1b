package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/keel-go/keel/memory"
)

// RecordRefusal implements [memory.RefusalLedger.RecordRefusal]: one
// upsert.
func (s *Store) RecordRefusal(ctx context.Context, r memory.Refusal) error {
	r, err := r.Normalize()
	if err != nil {
		return s.fail("record refusal", err)
	}
	err = s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(qRecordRefusal, r.Provider, r.Model, r.MediaType, r.LearnedAt, r.ExpiresAt, r.Status, r.Reason)
		return err
	})
	return s.fail("record refusal", err)
}

// Refusals implements [memory.RefusalLedger.Refusals]: one query on the
// primary key's prefix (provider, model).
func (s *Store) Refusals(ctx context.Context, provider, model string, now time.Time) ([]memory.Refusal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key, err := memory.RefusalKey{Provider: provider, Model: model}.Normalize()
	if err == nil && (provider == "" || model == "") {
		err = fmt.Errorf("%w: a lookup needs a provider and a model", memory.ErrInvalid)
	}
	if err != nil {
		return nil, s.fail("refusals", err)
	}
	rs, err := scanAll(s.db.One(ctx), qRefusals, scanRefusal, key.Provider, key.Model, now)
	if err != nil {
		return nil, s.fail("refusals", err)
	}
	return sortRefusals(rs), nil
}

// ListRefusals implements [memory.RefusalLedger.ListRefusals].
func (s *Store) ListRefusals(ctx context.Context) ([]memory.Refusal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rs, err := scanAll(s.db.One(ctx), qListRefusals, scanRefusal)
	if err != nil {
		return nil, s.fail("list refusals", err)
	}
	return sortRefusals(rs), nil
}

// ForgetRefusals implements [memory.RefusalLedger.ForgetRefusals]: one
// DELETE.
func (s *Store) ForgetRefusals(ctx context.Context, key memory.RefusalKey) (int, error) {
	key, err := key.Normalize()
	if err != nil {
		return 0, s.fail("forget refusals", err)
	}
	q, args := forgetRefusals(key.Provider, key.Model, key.MediaType)
	var n int64
	err = s.db.Write(ctx, func(tx Tx) error {
		var err error
		n, err = tx.Exec(q, args...)
		return err
	})
	return int(n), s.fail("forget refusals", err)
}

func scanRefusal(row Row) (memory.Refusal, error) {
	var r memory.Refusal
	err := row.Scan(&r.Provider, &r.Model, &r.MediaType, &r.LearnedAt, &r.ExpiresAt, &r.Status, &r.Reason)
	r.LearnedAt, r.ExpiresAt = r.LearnedAt.UTC(), r.ExpiresAt.UTC()
	return r, err
}

// sortRefusals orders rs by provider, model and media type, byte by byte
// (as the in-memory store does; a PostgreSQL collation may order text
// otherwise), and never returns nil.
func sortRefusals(rs []memory.Refusal) []memory.Refusal {
	if rs == nil {
		return []memory.Refusal{}
	}
	slices.SortFunc(rs, func(a, b memory.Refusal) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model), cmp.Compare(a.MediaType, b.MediaType))
	})
	return rs
}
