package memory

import (
	"context"
	"fmt"
	"slices"

	"github.com/keel-go/keel"
)

// memTurn is a queued turn as [InMemory] keeps it: its message encoded,
// so that what it returns shares nothing with what it keeps.
type memTurn struct {
	t   QueuedTurn // Message is zero: it is kept in msg.
	msg []byte
}

var _ TurnQueue = (*InMemory)(nil)

// QueueTurn implements [TurnQueue.QueueTurn].
func (s *InMemory) QueueTurn(ctx context.Context, t QueuedTurn, limits QueueLimits) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t, msg, err := CheckTurn(t, s.now())
	if err != nil {
		return fmt.Errorf("memory: queue turn: %w", err)
	}
	t.Message, t.Options = keel.Message{}, slices.Clone(t.Options)
	s.mu.Lock()
	defer s.mu.Unlock()
	inThread, inResource := 0, 0
	for _, q := range s.turns {
		if q.t.ID == t.ID {
			return fmt.Errorf("memory: queue turn: %w: turn %q is queued", ErrConflict, t.ID)
		}
		if q.t.ThreadID == t.ThreadID {
			inThread++
		}
		if q.t.ResourceID == t.ResourceID {
			inResource++
		}
	}
	if limits.PerThread > 0 && inThread >= limits.PerThread {
		return fmt.Errorf("memory: queue turn: %w: thread %q has %d turns waiting", ErrFull, t.ThreadID, inThread)
	}
	if limits.PerResource > 0 && inResource >= limits.PerResource {
		return fmt.Errorf("memory: queue turn: %w: resource %q has %d turns waiting", ErrFull, t.ResourceID, inResource)
	}
	s.turns = append(s.turns, memTurn{t: t, msg: msg})
	return nil
}

// NextTurn implements [TurnQueue.NextTurn].
func (s *InMemory) NextTurn(ctx context.Context, threadID string) (QueuedTurn, error) {
	if err := ctx.Err(); err != nil {
		return QueuedTurn{}, err
	}
	if err := CheckID("thread", threadID); err != nil {
		return QueuedTurn{}, fmt.Errorf("memory: next turn: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, q := range s.turns {
		if q.t.ThreadID == threadID {
			t := q.t
			t.Options = slices.Clone(t.Options)
			m, err := DecodeTurnMessage(q.msg)
			if err != nil {
				return QueuedTurn{}, fmt.Errorf("memory: next turn: %w", err)
			}
			t.Message = m
			return t, nil
		}
	}
	return QueuedTurn{}, fmt.Errorf("memory: next turn: %w: thread %q has no queued turn", ErrNotFound, threadID)
}

// RemoveTurn implements [TurnQueue.RemoveTurn].
func (s *InMemory) RemoveTurn(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = slices.DeleteFunc(s.turns, func(q memTurn) bool { return q.t.ID == id })
	return nil
}

// QueuedThreads implements [TurnQueue.QueuedThreads].
func (s *InMemory) QueuedThreads(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []string{}
	for _, q := range s.turns {
		if !slices.Contains(out, q.t.ThreadID) {
			out = append(out, q.t.ThreadID)
		}
	}
	return out, nil
}
