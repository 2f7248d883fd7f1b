package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory/internal/stored"
)

// TurnQueue is implemented by stores that keep the turns accepted for a
// thread until one runs them, so that a turn accepted by a server
// survives that server's stop or death and is run by whichever server
// finds it. The three stores of this module implement it. Deleting a
// thread removes its queued turns.
//
// The queue holds turns, not locks: running one turn of a thread at a
// time is the caller's (see [ThreadLocker]).
type TurnQueue interface {
	// QueueTurn stores t at the end of its thread's queue, its QueuedAt
	// set to now when zero. When the thread's queue already holds
	// limits.PerThread turns, or the queues of its resource
	// limits.PerResource, it is an error wrapping [ErrFull]; bad input
	// (an invalid ID, a message that cannot be stored) is one wrapping
	// [ErrInvalid]; either way nothing is stored. Two servers queueing
	// at once may each see room for one more: a bound can be passed by
	// as many turns as servers race for it.
	QueueTurn(ctx context.Context, t QueuedTurn, limits QueueLimits) error
	// NextTurn returns the oldest turn queued for the thread, or an error
	// wrapping [ErrNotFound] when it has none.
	NextTurn(ctx context.Context, threadID string) (QueuedTurn, error)
	// RemoveTurn removes the turn of that ID; removing one that is not
	// there is no error.
	RemoveTurn(ctx context.Context, id string) error
	// QueuedThreads returns the IDs of the threads that have queued
	// turns, each once.
	QueuedThreads(ctx context.Context) ([]string, error)
}

// QueuedTurn is a turn accepted for a thread and not yet run: the user's
// message and what the caller needs to run it.
type QueuedTurn struct {
	// ID identifies the turn (the run's ID); it must be a [ValidID].
	ID string
	// AgentID, ResourceID and ThreadID say who runs it, for whom, where.
	AgentID, ResourceID, ThreadID string
	// Message is the user's message, files included, stored as
	// [Store.SaveMessages] would store it.
	Message keel.Message
	// Options are the caller's, kept as given (such as JSON): the store
	// does not read them.
	Options []byte
	// QueuedAt is when the turn was accepted, in UTC to the millisecond.
	QueuedAt time.Time
}

// QueueLimits bound the turns [TurnQueue.QueueTurn] accepts; 0 means no
// bound.
type QueueLimits struct {
	// PerThread bounds the turns waiting in one thread.
	PerThread int
	// PerResource bounds the turns waiting in all of a resource's
	// threads.
	PerResource int
}

// ErrFull: a queue already holds as many turns as its bound allows.
var ErrFull = stored.ErrFull

// CheckTurn checks t as [TurnQueue.QueueTurn] does and returns it with
// QueuedAt set (now, when zero) and its message in the form the stores
// of this module keep it, for a store of another package.
func CheckTurn(t QueuedTurn, now time.Time) (QueuedTurn, []byte, error) {
	for _, id := range [...]struct{ kind, id string }{{"turn", t.ID}, {"agent", t.AgentID}, {"resource", t.ResourceID}, {"thread", t.ThreadID}} {
		if err := CheckID(id.kind, id.id); err != nil {
			return QueuedTurn{}, nil, err
		}
	}
	if t.Message.Role != keel.RoleUser {
		return QueuedTurn{}, nil, fmt.Errorf("%w: a queued turn's message is the user's, not %q", ErrInvalid, stored.Truncate(string(t.Message.Role)))
	}
	if t.QueuedAt.IsZero() {
		t.QueuedAt = now
	}
	t.QueuedAt = stored.Time(t.QueuedAt)
	msg, err := stored.EncodeQueued(t.Message)
	if err != nil {
		return QueuedTurn{}, nil, err
	}
	return t, msg, nil
}

// DecodeTurnMessage decodes a message kept by a store in the form
// [CheckTurn] returned it.
func DecodeTurnMessage(b []byte) (keel.Message, error) { return stored.DecodeQueued(b) }
