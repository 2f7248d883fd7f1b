package sqlitestore

import "context"

// WriteForTest runs fn as a write of s, with exec running statements in
// its transaction: tests use it to hold a transaction open, or to end
// one the way SQLite does on an I/O error.
func (s *Store) WriteForTest(ctx context.Context, fn func(exec func(query string, args ...any) error) error) error {
	return s.f.writeTx(ctx, func(c conn) error {
		return fn(func(query string, args ...any) error {
			_, err := c.tx.ExecContext(c.ctx, query, args...)
			return err
		})
	})
}

// QueuedWrites returns the number of writes waiting for a transaction.
func (s *Store) QueuedWrites() int {
	s.f.w.mu.Lock()
	defer s.f.w.mu.Unlock()
	return len(s.f.w.queue)
}

// Leading reports whether a write of s holds the lead: it is running, or
// waiting for SQLite's lock.
func (s *Store) Leading() bool {
	s.f.w.mu.Lock()
	defer s.f.w.mu.Unlock()
	return s.f.w.leading
}

// AutoCheckpointForTest returns wal_autocheckpoint as a connection of s
// has it.
func (s *Store) AutoCheckpointForTest(ctx context.Context) (int, error) {
	var n int
	err := s.f.db.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&n)
	return n, err
}
