package localsandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/diskquota"
)

// A sandbox's disk quota is enforced by a file system of its own where
// the host allows it (see fsquota.go), else measured: keel walks the
// directory (see measure.go) before a command, at a fixed interval while
// it runs, after it, and before each write, under the rules of
// workspace/internal/diskquota, which hold against the three ways a
// command once went past a measured quota:
//
//   - A measurement that fails (a tree deeper than the walk goes, more
//     files than [Limits].Files, a directory keel cannot read) ends the
//     command as going over does, and refuses writes.
//   - The interval is fixed: a tree of many files cannot stretch it,
//     since more files than the limit is itself a failure.
//   - fallocate, which reserves blocks far faster than any interval,
//     fails inside such a sandbox (its seccomp filter, see seccomp.go);
//     a program that falls back to writing the bytes writes at the
//     disk's pace. Each file counts by the larger of its allocated and
//     apparent size, so a sparse file costs what it claims.
//
// Between two measurements a command can still write what the disk takes
// in one interval; RLIMIT_FSIZE bounds each of its files.

// quotaInterval is how often a running command's sandbox is measured,
// or its own file system looked at.
const quotaInterval = diskquota.Interval

// used returns how much the sandbox holds against its quota.
func (s *Sandbox) used() (int64, error) {
	if s.ownFS {
		u, err := statFS(s.dir)
		return u.used, err
	}
	u, err := measure(s.dir, s.opts.Limits.Files)
	return u.bytes, err
}

// checkRoom returns an error wrapping [workspace.ErrQuotaExceeded] when
// adding n bytes would take the sandbox over its quota.
func (s *Sandbox) checkRoom(n int64) error {
	quota := s.opts.Limits.Disk
	if quota < 0 {
		return nil
	}
	if s.ownFS {
		u, err := statFS(s.dir)
		if err != nil {
			return fmt.Errorf("%w: %v", workspace.ErrQuotaExceeded, err)
		}
		if n > u.free || u.filesFree == 0 {
			return diskquota.Full(quota, u.used, n)
		}
		return nil
	}
	used, err := s.used()
	return diskquota.Room(quota, used, n, err)
}

// quotaWatch measures a sandbox while its command runs and calls over
// when the command took it over its quota (above the quota, or above
// what the sandbox already held when it started over it, so that a
// command run to remove files is not ended) or when the sandbox could not
// be measured.
type quotaWatch struct {
	s          *Sandbox
	quota      int64
	stop, done chan struct{} // of the watch of an own file system
	over       bool          // set before done is closed
	measured   *diskquota.Watch
}

// fullSlack is how close to its size a sandbox's own file system counts
// as full: its command is ended then, as one that goes over a measured
// quota is, rather than left to loop on ENOSPC.
func fullSlack(size int64) int64 { return size / 64 }

// watchQuota starts watching s's disk use; the caller must call finish.
// A quota below zero watches nothing. A file system of the sandbox's own
// is watched with statfs, which costs nothing: it cannot go over, and
// its command is ended when it fills it.
func watchQuota(s *Sandbox, over func()) *quotaWatch {
	w := &quotaWatch{s: s, quota: s.opts.Limits.Disk, stop: make(chan struct{}), done: make(chan struct{})}
	if w.quota < 0 {
		close(w.done)
		return w
	}
	if s.ownFS {
		go w.watchFS(over)
		return w
	}
	// A sandbox that cannot be measured now is held to its quota, and
	// its first failed measurement ends the command (see diskquota).
	before, err := s.used()
	limit := diskquota.Limit(w.quota, before, err)
	close(w.done)
	w.measured = diskquota.Start(func(context.Context) (int64, error) { return s.used() },
		func() int64 { return limit }, over)
	return w
}

// watchFS ends the command when it fills the sandbox's own file system
// (beyond what it held at the start).
func (w *quotaWatch) watchFS(over func()) {
	defer close(w.done)
	u, err := statFS(w.s.dir)
	if err != nil {
		return
	}
	// Full is less room than the slack, and less than at the start.
	floor, files := min(fullSlack(u.size), u.free), u.filesFree
	t := time.NewTicker(quotaInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		if u, err := statFS(w.s.dir); err == nil && (u.free < floor || (u.filesFree == 0 && files > 0)) {
			w.over = true
			over()
			return
		}
	}
}

// finish stops the watch, measures the sandbox and returns the line to
// end the command's stderr with, "" when it is within its quota.
func (w *quotaWatch) finish() string {
	close(w.stop)
	<-w.done
	if w.quota < 0 {
		return ""
	}
	if w.s.ownFS {
		u, err := statFS(w.s.dir)
		switch {
		case err != nil:
			return fmt.Sprintf("localsandbox: the sandbox's disk use cannot be measured (%v)", err)
		case w.over:
			return fmt.Sprintf("localsandbox: the command was ended: it filled the sandbox's %s disk quota (%s used, %d files free); remove files to go on",
				Size(w.quota), Size(u.used), u.filesFree)
		case u.free < fullSlack(u.size):
			return fmt.Sprintf("localsandbox: the sandbox's disk is full: it holds %s of its %s quota; remove files to go on",
				Size(u.used), Size(w.quota))
		case u.filesFree == 0:
			return fmt.Sprintf("localsandbox: the sandbox holds as many files as it may (%d); remove some to go on", w.s.opts.Limits.Files)
		}
		return ""
	}
	over, failed := w.measured.Stop()
	used, err := w.s.used()
	return diskquota.Note("localsandbox", w.quota, used, err, over, failed)
}
