package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// writer commits this store's writes in groups. A write that arrives
// while another commits joins the next transaction, so under load many
// calls share one commit, whose pages (the newest rows of each table and
// index) SQLite then writes to the WAL once rather than once per call.
// Each call keeps its own all-or-nothing: in a group it runs in a
// savepoint that is rolled back if it fails, and it returns only once
// its transaction has committed, or with an error and nothing of it
// written.
//
// The first write to find no commit under way leads: it runs its own
// write and those waiting then, commits, and hands the lead to the next
// waiting write, if any. A write alone is one transaction, with no other
// goroutine involved. Other processes are held off by SQLite's lock.
type writer struct {
	mu      sync.Mutex
	queue   []*writeOp
	leading bool
}

// Each write of a group runs in a savepoint.
const (
	qSavepoint  = `SAVEPOINT write`
	qRollbackTo = `ROLLBACK TO write`
	qRelease    = `RELEASE write`
)

// maxGroup bounds the writes one transaction takes, so that a leader's
// own call is not kept long.
const maxGroup = 32

// States of a writeOp: queued until a leader claims it, to run it or to
// lead, or its caller abandons it because its context ended first.
const (
	opQueued int32 = iota
	opClaimed
	opAbandoned
)

type writeOp struct {
	ctx   context.Context
	fn    func(c conn) error
	state atomic.Int32
	done  chan opResult // one result, buffered
}

type opResult struct {
	err  error
	lead bool // no result yet: lead the next group
}

// outcome is what became of one write of a group.
type outcome struct {
	err   error
	again bool // not run, or undone with its transaction: run it again
}

// writeTx runs fn in an IMMEDIATE transaction, perhaps shared with other
// writes of this store, and returns once that has committed. fn may run
// more than once, when a transaction it shared fails for another write's
// reason, so it sets its results afresh each time.
func (f *file) writeTx(ctx context.Context, fn func(c conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	op := &writeOp{ctx: ctx, fn: fn, done: make(chan opResult, 1)}
	w := &f.w
	w.mu.Lock()
	if !w.leading {
		w.leading = true
		w.mu.Unlock()
		op.state.Store(opClaimed)
		return rethrow(f.lead(op))
	}
	w.queue = append(w.queue, op)
	w.mu.Unlock()
	var r opResult
	select {
	case r = <-op.done:
	case <-ctx.Done():
		if op.state.CompareAndSwap(opQueued, opAbandoned) {
			return ctx.Err() // no leader will run it
		}
		r = <-op.done // claimed: it is running, or is to lead
	}
	if r.lead {
		return rethrow(f.lead(op))
	}
	return rethrow(r.err)
}

// lead runs own, which is claimed, with the writes waiting now, until
// own has an outcome, then passes the lead on.
func (f *file) lead(own *writeOp) error {
	w := &f.w
	for {
		w.mu.Lock()
		n := min(len(w.queue), maxGroup-1)
		group := append([]*writeOp{own}, w.queue[:n]...)
		w.queue = w.queue[n:]
		w.mu.Unlock()

		outs := f.commitGroup(group)
		var again []*writeOp
		for i, op := range group[1:] {
			switch state := op.state.Load(); {
			case state == opAbandoned:
				// its caller gave up before it ran
			case outs[i+1].again:
				// Unclaimed again, so that its caller can still give up.
				op.state.CompareAndSwap(opClaimed, opQueued)
				again = append(again, op)
			default:
				op.done <- opResult{err: outs[i+1].err}
			}
		}
		w.mu.Lock()
		w.queue = append(again, w.queue...)
		if !outs[0].again {
			f.passLead()
			w.mu.Unlock()
			return outs[0].err
		}
		w.mu.Unlock()
	}
}

// passLead hands the lead to the first waiting write, or ends it. w.mu
// is held.
func (f *file) passLead() {
	w := &f.w
	for len(w.queue) > 0 {
		next := w.queue[0]
		w.queue = w.queue[1:]
		if next.state.CompareAndSwap(opQueued, opClaimed) {
			next.done <- opResult{lead: true}
			return
		}
	}
	w.leading = false
}

// commitGroup runs group[0], which is claimed, and those of the others
// it can claim, in one IMMEDIATE transaction.
func (f *file) commitGroup(group []*writeOp) []outcome {
	outs := make([]outcome, len(group))
	own := group[0]
	if len(group) == 1 {
		// Alone, the write's context bounds the whole transaction,
		// including the wait for another process's lock.
		outs[0].err = f.commitOne(own)
		return outs
	}
	for i := range outs[1:] {
		outs[i+1].again = true
	}
	// Shared, the transaction must outlive any one write's context, but
	// not all of them: once every caller gave up, waiting on for another
	// process's lock (or committing) serves no one, and ending the
	// transaction leaves nothing of theirs written.
	gctx, cancel := context.WithCancel(context.WithoutCancel(own.ctx))
	defer cancel()
	go func() {
		for _, op := range group {
			select {
			case <-op.ctx.Done():
			case <-gctx.Done():
				return
			}
		}
		cancel()
	}()
	f.ckpt.writes.RLock()
	defer f.ckpt.writes.RUnlock()
	tx, err := f.db.BeginTx(gctx, nil)
	if err != nil {
		outs[0].err = ownErr(own, err)
		return outs
	}
	defer tx.Rollback()
	sp := newConn(context.Background(), f.st, tx)
	ran := make([]bool, len(group))
	for i, op := range group {
		if i > 0 && !op.state.CompareAndSwap(opQueued, opClaimed) {
			continue
		}
		outs[i].again = false
		if err := op.ctx.Err(); err != nil {
			outs[i].err = err
			continue
		}
		if _, err := sp.Exec(qSavepoint); err != nil {
			outs[i].err = err
			return redo(outs, ran, i)
		}
		ran[i] = true
		if err := run(op, newConn(op.ctx, f.st, tx)); err != nil {
			outs[i].err = err
			ran[i] = false
			if _, rerr := sp.Exec(qRollbackTo); rerr != nil {
				// SQLite ended the whole transaction (interrupted, or
				// out of disk, say) for this write.
				return redo(outs, ran, i)
			}
		}
		if _, err := sp.Exec(qRelease); err != nil {
			outs[i].err = err
			ran[i] = false
			return redo(outs, ran, i)
		}
	}
	if err = tx.Commit(); err == nil {
		f.ckpt.committed()
	}
	for i := range outs {
		if ran[i] && outs[i].err == nil && err != nil {
			outs[i].err = ownErr(group[i], err)
		}
	}
	return outs
}

// ownErr is the error a write of a group gets for its transaction's
// failure: its own context's error when that ended, since a shared
// transaction is cancelled (context.Canceled) only once every caller's
// context has ended, whatever ended each.
func ownErr(op *writeOp, err error) error {
	if cerr := op.ctx.Err(); cerr != nil && errors.Is(err, context.Canceled) {
		return cerr
	}
	return err
}

// redo marks the writes besides failed that ran, or were to run, to run
// again: their transaction is undone through no fault of theirs.
func redo(outs []outcome, ran []bool, failed int) []outcome {
	for i := range outs {
		if i != failed && (ran[i] || i > failed) {
			outs[i] = outcome{again: true}
		}
	}
	return outs
}

// commitOne runs op alone in a transaction.
func (f *file) commitOne(op *writeOp) error {
	f.ckpt.writes.RLock()
	defer f.ckpt.writes.RUnlock()
	tx, err := f.db.BeginTx(op.ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := run(op, newConn(op.ctx, f.st, tx)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	f.ckpt.committed()
	return nil
}

// run runs op's fn with c. A panic in fn becomes an error, so that the
// transaction is undone and the lead passed on as for any failed write,
// and goes on in op's caller's goroutine (see rethrow), whichever
// goroutine ran it.
func run(op *writeOp, c conn) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicked{v}
		}
	}()
	return op.fn(c)
}

// panicked is a write's panic on its way to its caller.
type panicked struct{ value any }

func (p *panicked) Error() string { return fmt.Sprintf("sqlitestore: write panicked: %v", p.value) }

// rethrow panics again with a write's panic, in its caller's goroutine.
func rethrow(err error) error {
	if p, ok := err.(*panicked); ok {
		panic(p.value)
	}
	return err
}
