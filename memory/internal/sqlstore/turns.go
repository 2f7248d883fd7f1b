package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel/memory"
)

const (
	turnColumns        = `id, agent_id, resource_id, thread_id, message, options, queued_at`
	qQueueTurn         = `INSERT INTO keel_turns (` + turnColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`
	qThreadTurnCount   = `SELECT COUNT(*) FROM keel_turns WHERE thread_id = $1`
	qResourceTurnCount = `SELECT COUNT(*) FROM keel_turns WHERE resource_id = $1`
	qNextTurn          = `SELECT ` + turnColumns + ` FROM keel_turns WHERE thread_id = $1 ORDER BY seq LIMIT 1`
	qRemoveTurn        = `DELETE FROM keel_turns WHERE id = $1`
	qRemoveThreadTurns = `DELETE FROM keel_turns WHERE thread_id = $1`
	qQueuedThreads     = `SELECT thread_id FROM keel_turns GROUP BY thread_id ORDER BY MIN(seq)`
)

// QueueTurn implements [memory.TurnQueue.QueueTurn]: the counts and the
// INSERT in one transaction.
func (s *Store) QueueTurn(ctx context.Context, t memory.QueuedTurn, limits memory.QueueLimits) error {
	t, msg, err := memory.CheckTurn(t, s.cfg.Now())
	if err != nil {
		return s.fail("queue turn", err)
	}
	options := t.Options
	if options == nil {
		options = []byte{}
	}
	err = s.db.Write(ctx, func(tx Tx) error {
		for _, bound := range []struct {
			limit      int
			query, key string
			what       string
		}{{limits.PerThread, qThreadTurnCount, t.ThreadID, "thread"}, {limits.PerResource, qResourceTurnCount, t.ResourceID, "resource"}} {
			if bound.limit <= 0 {
				continue
			}
			var n int
			if err := tx.QueryRow(bound.query, bound.key).Scan(&n); err != nil {
				return err
			}
			if n >= bound.limit {
				return fmt.Errorf("%w: %s %q has %d turns waiting", memory.ErrFull, bound.what, bound.key, n)
			}
		}
		n, err := tx.Exec(qQueueTurn, t.ID, t.AgentID, t.ResourceID, t.ThreadID, msg, options, t.QueuedAt)
		if err == nil && n == 0 {
			err = fmt.Errorf("%w: turn %q is queued", memory.ErrConflict, t.ID)
		}
		return err
	})
	return s.fail("queue turn", err)
}

// NextTurn implements [memory.TurnQueue.NextTurn].
func (s *Store) NextTurn(ctx context.Context, threadID string) (memory.QueuedTurn, error) {
	if err := ctx.Err(); err != nil {
		return memory.QueuedTurn{}, err
	}
	if err := memory.CheckID("thread", threadID); err != nil {
		return memory.QueuedTurn{}, s.fail("next turn", err)
	}
	var t memory.QueuedTurn
	var msg []byte
	err := s.db.One(ctx).QueryRow(qNextTurn, threadID).Scan(&t.ID, &t.AgentID, &t.ResourceID, &t.ThreadID, &msg, &t.Options, &t.QueuedAt)
	if errors.Is(err, ErrNoRows) {
		err = fmt.Errorf("%w: thread %q has no queued turn", memory.ErrNotFound, threadID)
	}
	if err == nil {
		t.QueuedAt = t.QueuedAt.UTC()
		t.Message, err = memory.DecodeTurnMessage(msg)
	}
	if err != nil {
		return memory.QueuedTurn{}, s.fail("next turn", err)
	}
	return t, nil
}

// RemoveTurn implements [memory.TurnQueue.RemoveTurn].
func (s *Store) RemoveTurn(ctx context.Context, id string) error {
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(qRemoveTurn, id)
		return err
	})
	return s.fail("remove turn", err)
}

// QueuedThreads implements [memory.TurnQueue.QueuedThreads].
func (s *Store) QueuedThreads(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, err := scanAll(s.db.One(ctx), qQueuedThreads, scanString)
	if err != nil {
		return nil, s.fail("queued threads", err)
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}
