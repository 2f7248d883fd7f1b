package sqlitestore

import (
	"context"
	"fmt"
	"slices"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

var (
	_ memory.ThreadStarter     = (*Store)(nil)
	_ memory.ThreadOwnerFinder = (*Store)(nil)
)

// StartThread implements [memory.ThreadStarter]: the thread's INSERT and
// its messages' share one write, and so one commit, the cost of a new
// thread's first turn halved.
func (s *Store) StartThread(ctx context.Context, t memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	t, err := memory.NewThread(t, s.now())
	if err != nil {
		return memory.Thread{}, nil, fmt.Errorf("sqlitestore: start thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	enc, blobs, err := memory.EncodeMessages(msgs)
	if err != nil {
		return memory.Thread{}, nil, fmt.Errorf("sqlitestore: start thread: %w", err)
	}
	var (
		stored []memory.EncodedMessage
		out    memory.Thread
	)
	err = s.writeTx(ctx, func(c conn) error {
		// Work on copies, which saving completes: a write may run again.
		stored, out = slices.Clone(enc), t
		now := memory.StoredTime(s.now())
		out.UpdatedAt = now
		n, err := c.exec(qInsertThread,
			out.ID, out.ResourceID, out.Title, string(meta), millis(out.CreatedAt), millis(out.UpdatedAt))
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: thread %q exists", memory.ErrConflict, out.ID)
		}
		if err := putBlobs(c, blobs); err != nil {
			return err
		}
		var released []string
		for i := range stored {
			// A message saved twice in msgs replaces its first copy.
			old, err := saveMessage(c, out.ID, &stored[i], now)
			if err != nil {
				return err
			}
			released = append(released, old...)
		}
		return dropUnused(c, released)
	})
	if err != nil {
		return memory.Thread{}, nil, fmt.Errorf("sqlitestore: start thread: %w", err)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	out.Metadata, _ = memory.DecodeMetadata(meta)
	return out, memory.Stored(msgs, stored), nil
}
