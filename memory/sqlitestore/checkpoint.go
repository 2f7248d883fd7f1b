package sqlitestore

import (
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// checkpointer copies the write-ahead log into the database file from a
// goroutine of its own. SQLite's default is to do it inside the commit
// that takes the log past 1,000 pages: that commit's caller then waits for
// some 4 MB to be written and synced (about 10 ms here), and since writes
// are committed in groups, so does every caller queued behind it; it was
// the whole p99 of a text generate through keel serve. Every connection
// therefore has wal_autocheckpoint off, and this goroutine runs a PASSIVE
// checkpoint, which never waits for readers or writers, after every
// checkpointCommits commits, and checkpointEvery after the last ones.
type checkpointer struct {
	db      *sql.DB
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
		// A checkpoint that cannot finish (another process's, or readers
		// on older pages) leaves the rest for the next one.
		_, _ = c.db.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
}

// close stops the goroutine. Closing the database's last connection then
// checkpoints what is left.
func (c *checkpointer) close() {
	c.once.Do(func() { close(c.stop) })
	<-c.done
}
