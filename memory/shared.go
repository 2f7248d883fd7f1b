package memory

import (
	"context"
	"sync"
)

// ThreadLocker is implemented by stores that lock a thread for every
// process sharing the store, so that the turns of one thread run one at
// a time whichever server runs them. PostgreSQL's store does, with an
// advisory lock per thread held on a connection of its own: a server
// that dies drops its connections, and so its locks. A single process
// needs no more than [LocalLocks].
type ThreadLocker interface {
	// LockThread waits until the caller holds the thread's lock, or ctx
	// ends (its error is then returned). unlock releases the lock; call
	// it once.
	LockThread(ctx context.Context, threadID string) (unlock func(), err error)
}

// EventBus is implemented by stores that carry events from each process
// sharing the store to every process listening, so that a subscriber to
// a thread's live events on one server sees the turns another runs.
// PostgreSQL's store does, with LISTEN/NOTIFY; an event too large for a
// notification is stored, and the notification names it.
type EventBus interface {
	// Publish sends events, in order, to every Listen of every process
	// (this one's included). Events of one Publish call, and of calls one
	// after another, arrive in the order given.
	Publish(ctx context.Context, events ...Event) error
	// Listen calls fn with each event published, from when it listens
	// until ctx ends, one at a time in the order they arrive. It returns
	// ctx's error, or the error that stopped it (a lost connection):
	// events published meanwhile are missed, and the caller listens
	// again.
	Listen(ctx context.Context, fn func(Event)) error
}

// Event is an event of an [EventBus]: a topic and its payload, text of
// at most [MaxEventSize] bytes without NUL.
type Event struct {
	Topic   string
	Payload []byte
}

// MaxEventSize bounds an [Event]'s topic and payload together.
const MaxEventSize = 64 << 20

// LocalLocks locks threads within one process: a [ThreadLocker] for a
// store that only one process uses. The zero value is ready; it is safe
// for concurrent use, and keeps nothing for a thread nobody holds or
// waits for.
type LocalLocks struct {
	mu      sync.Mutex
	threads map[string]*localLock
}

type localLock struct {
	held  chan struct{} // holds a value while the lock is held
	users int           // the holder and the waiters
}

var _ ThreadLocker = (*LocalLocks)(nil)

// LockThread implements [ThreadLocker.LockThread]. Waiters get the lock
// in no particular order.
func (l *LocalLocks) LockThread(ctx context.Context, threadID string) (func(), error) {
	l.mu.Lock()
	if l.threads == nil {
		l.threads = make(map[string]*localLock)
	}
	t := l.threads[threadID]
	if t == nil {
		t = &localLock{held: make(chan struct{}, 1)}
		l.threads[threadID] = t
	}
	t.users++
	l.mu.Unlock()
	select {
	case t.held <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-t.held; l.leave(threadID, t) }) }, nil
	case <-ctx.Done():
		l.leave(threadID, t)
		return nil, ctx.Err()
	}
}

// leave drops one user of t, and t itself with the last.
func (l *LocalLocks) leave(threadID string, t *localLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t.users--; t.users == 0 {
		delete(l.threads, threadID)
	}
}

// Unwrapper is implemented by stores that wrap another, such as one that
// reports each call to an observer, so that the optional capabilities the
// wrapper does not forward are found on the store it wraps (see
// [Capability]).
type Unwrapper interface {
	Unwrap() Store
}

// Capability returns s as C, an optional capability such as
// [TurnQueue], when s or a store it wraps ([Unwrapper]) implements it.
func Capability[C any](s Store) (C, bool) {
	for s != nil {
		if c, ok := s.(C); ok {
			return c, true
		}
		u, ok := s.(Unwrapper)
		if !ok {
			break
		}
		s = u.Unwrap()
	}
	var zero C
	return zero, false
}
