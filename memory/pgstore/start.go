package pgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

var (
	_ memory.ThreadStarter     = (*Store)(nil)
	_ memory.ThreadOwnerFinder = (*Store)(nil)
)

// StartThread implements [memory.ThreadStarter]: the thread's INSERT and
// its messages' share one transaction, and so one commit.
func (s *Store) StartThread(ctx context.Context, t memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	t, err := memory.NewThread(t, s.now())
	if err != nil {
		return memory.Thread{}, nil, fmt.Errorf("pgstore: start thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	enc, blobs, err := memory.EncodeMessages(msgs)
	if err != nil {
		return memory.Thread{}, nil, fmt.Errorf("pgstore: start thread: %w", err)
	}
	var (
		saved []memory.EncodedMessage
		out   memory.Thread
	)
	err = s.writeTx(ctx, func(tx pgx.Tx) error {
		// Fresh copies per attempt: saving fills in times.
		saved, out = slices.Clone(enc), t
		now := memory.StoredTime(s.now())
		out.UpdatedAt = now
		tag, err := tx.Exec(ctx, `INSERT INTO keel_threads (id, resource_id, title, metadata, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
			out.ID, out.ResourceID, out.Title, string(meta), out.CreatedAt, out.UpdatedAt)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: thread %q exists", memory.ErrConflict, out.ID)
		}
		if err := putBlobs(ctx, tx, blobs); err != nil {
			return err
		}
		var released []string
		for i := range saved {
			// A message saved twice in msgs replaces its first copy.
			old, err := saveMessage(ctx, tx, out.ID, &saved[i], now)
			if err != nil {
				return err
			}
			released = append(released, old...)
		}
		return dropUnused(ctx, tx, released)
	})
	if err != nil {
		return memory.Thread{}, nil, fmt.Errorf("pgstore: start thread: %w", err)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	out.Metadata, _ = memory.DecodeMetadata(meta)
	return out, memory.Stored(msgs, saved), nil
}
