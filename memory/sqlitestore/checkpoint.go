package sqlitestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointer copies the write-ahead log into the database file from a
// goroutine of its own. SQLite's default is to do it inside the commit
// that takes the log past 1,000 pages: that commit's caller then waits for
// some 4 MB to be written and synced (about 10 ms here), and since writes
// are committed in groups, so does every caller queued behind it; it was
// the whole p99 of a text generate through keel serve (taken out once as
// within noise, then put back: at one client the p99's median went from
// 15.4 to 8.5 ms, BENCHMARKS.md). Every connection
// therefore has wal_autocheckpoint off, and this goroutine checkpoints
// after every checkpointCommits commits, and checkpointEvery after the
// last ones.
//
// A checkpoint alone does not keep the log small: SQLite starts the log
// over only when a write begins with every frame of it copied and no
// reader on it, and writes going on beside the checkpoint keep adding
// frames, so the log would grow for ever (by gigabytes over a few hundred
// thousand calls). Each round is therefore two checkpoints. The first, a
// PASSIVE one, which never waits for readers or writers, copies the bulk
// of the log beside the writes. The second copies the few frames added
// meanwhile with this store's writes held off (writes), so that the next
// write starts the log over: PASSIVE again, unless readers kept the log
// from being started over and it has grown past restartFrames; then
// RESTART, which also waits, restartWait at most, for the readers to
// leave the log.
type checkpointer struct {
	db      *sql.DB
	writes  sync.RWMutex // held shared by each write transaction
	commits atomic.Int64
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

const (
	// checkpointCommits is how many commits, of a few pages each, make a
	// checkpoint due at once.
	checkpointCommits = 200
	// checkpointEvery is how often commits fewer than that are
	// checkpointed.
	checkpointEvery = 250 * time.Millisecond
	// restartFrames is the size of the log, in frames of a page each
	// (16 MiB of 4 KiB pages), from which a round waits for readers.
	restartFrames = 4096
	// restartWait bounds that wait, during which this store's writes
	// wait too.
	restartWait = 250 * time.Millisecond
)

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

// committed counts a commit.
func (c *checkpointer) committed() {
	if c.commits.Add(1)%checkpointCommits == 0 {
		select {
		case c.kick <- struct{}{}:
		default: // one is due already
		}
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	var last int64
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		case <-t.C:
		}
		n := c.commits.Load()
		if n == last {
			continue
		}
		last = n
		c.round()
	}
}

// round runs one round of checkpoints. A checkpoint that cannot finish
// (another process's is under way, or readers are on older frames)
// leaves the rest for the next round.
func (c *checkpointer) round() {
	ctx := context.Background()
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	var busy, frames, copied int
	if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		return
	}
	c.writes.Lock()
	defer c.writes.Unlock()
	if frames <= restartFrames {
		_, _ = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		return
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", restartWait.Milliseconds())); err != nil {
		return
	}
	_, _ = conn.ExecContext(ctx, "PRAGMA wal_checkpoint(RESTART)")
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", BusyTimeout.Milliseconds())); err != nil {
		// A connection left with the short timeout must not serve writes.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// close stops the goroutine. Closing the database's last connection then
// checkpoints what is left.
func (c *checkpointer) close() {
	c.once.Do(func() { close(c.stop) })
	<-c.done
}
