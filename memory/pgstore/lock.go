package pgstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/keel-go/keel/memory"
)

// threadLockSpace is the first key of every thread's advisory lock
// ("keel" in ASCII), the second the hash of the thread's ID: the pair of
// 32-bit keys is a space apart from the migrations' 64-bit key. Two
// threads whose IDs hash alike share a lock, which only makes one wait
// for the other now and then.
const threadLockSpace = 0x6b65656c

// maxLockSessions bounds the connections that hold or wait for a
// thread's lock at once; more turns wait for one of them.
const maxLockSessions = 32

// lockSessions is the pool of the connections advisory locks are held
// on, apart from the store's pool, so that turns waiting for locks never
// starve the store's own statements. It opens when first used.
type lockSessions struct {
	config *pgxpool.Config
	once   sync.Once
	pool   *pgxpool.Pool
	err    error
	local  memory.LocalLocks

	mu   sync.Mutex
	held map[*pgxpool.Conn]bool // the sessions holding a lock
}

func (l *lockSessions) open(ctx context.Context) (*pgxpool.Pool, error) {
	l.once.Do(func() {
		cfg := l.config.Copy()
		cfg.MaxConns = maxLockSessions
		cfg.MinConns = 0
		l.pool, l.err = pgxpool.NewWithConfig(ctx, cfg)
	})
	return l.pool, l.err
}

// close ends every session, which releases the locks they hold (as a
// server's death would), then the pool.
func (l *lockSessions) close() {
	l.mu.Lock()
	held := l.held
	l.held = nil
	l.mu.Unlock()
	for conn := range held {
		_ = conn.Conn().Close(context.Background())
		conn.Release()
	}
	if l.pool != nil {
		l.pool.Close()
	}
}

// hold records conn as holding a lock.
func (l *lockSessions) hold(conn *pgxpool.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = make(map[*pgxpool.Conn]bool)
	}
	l.held[conn] = true
}

// drop reports whether conn still held a lock (close did not end it),
// and forgets it.
func (l *lockSessions) drop(conn *pgxpool.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ok := l.held[conn]
	delete(l.held, conn)
	return ok
}

// LockThread implements [memory.ThreadLocker]: pg_advisory_lock on a
// session of its own, which holds the lock until unlock or until the
// session ends (a server that dies releases its locks with its
// connections). The turns of this process queue in process first, so
// that one session per thread waits in the database.
func (s *Store) LockThread(ctx context.Context, threadID string) (func(), error) {
	if err := memory.CheckID("thread", threadID); err != nil {
		return nil, fmt.Errorf("pgstore: lock thread: %w", err)
	}
	unlockLocal, err := s.locks.local.LockThread(ctx, threadID)
	if err != nil {
		return nil, err
	}
	pool, err := s.locks.open(ctx)
	if err != nil {
		unlockLocal()
		return nil, fmt.Errorf("pgstore: lock thread: %w", err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		unlockLocal()
		return nil, fmt.Errorf("pgstore: lock thread: %w", err)
	}
	// A wait cut by ctx makes pgx close the connection, which releases
	// the lock had it just been granted.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, int32(threadLockSpace), threadID); err != nil {
		conn.Release()
		unlockLocal()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("pgstore: lock thread: %w", err)
	}
	s.locks.hold(conn)
	var once sync.Once
	return func() {
		once.Do(func() {
			if s.locks.drop(conn) {
				// The unlock must reach the database whatever the
				// caller's context: a session that cannot unlock is
				// closed instead.
				if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1, hashtext($2))`, int32(threadLockSpace), threadID); err != nil {
					_ = conn.Conn().Close(context.Background())
				}
				conn.Release()
			}
			unlockLocal()
		})
	}, nil
}
