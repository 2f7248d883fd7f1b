// Package diskquota holds a sandbox's disk quota when no file system
// quota does: the sandbox is measured before each write, before (see
// [Limit]) and after each command, and at a fixed interval while it runs,
// by whatever means the sandbox has (a walk of a host directory from
// descriptor to descriptor, a program in a container). It decides and
// words; measuring is the caller's.
//
// # What a measured quota must hold against
//
// A command once went past a measured quota three ways, and the rules
// here close each:
//
//   - A measurement that fails (a tree deeper than the measuring goes,
//     more files than the sandbox may hold, a directory that cannot be
//     read) ends the command as going over does, and refuses writes:
//     failing to see is never taken for being within the quota. A
//     command that starts in a sandbox that cannot be measured is held
//     to the quota itself and is ended at its first measurement, one
//     [Interval] in: time enough for rm -rf to remove what blinds the
//     measurement (a command that needs longer is run again), too short
//     to write much.
//   - The interval is fixed: a tree of many files cannot stretch it,
//     since the measuring side fails past a number of files.
//   - What reserves blocks faster than any interval (fallocate) is the
//     sandbox's to refuse; what is written between two measurements is
//     bounded by the per-file size limit.
package diskquota

import (
	"context"
	"fmt"
	"time"

	"github.com/keel-go/keel/workspace"
)

// Interval is how often a running command's sandbox is measured.
const Interval = 250 * time.Millisecond

// Room returns an error wrapping [workspace.ErrQuotaExceeded] when a
// sandbox holding used bytes (measured with error err) has no room for n
// more under quota; a negative quota has room for anything. A sandbox
// that cannot be measured has no room, so that a command cannot hide
// files from the quota.
func Room(quota, used, n int64, err error) error {
	switch {
	case quota < 0:
		return nil
	case err != nil:
		return fmt.Errorf("%w: %v", workspace.ErrQuotaExceeded, err)
	case used+n > quota:
		return Full(quota, used, n)
	}
	return nil
}

// Full is the error wrapping [workspace.ErrQuotaExceeded] of a sandbox
// holding used bytes of its quota that has no room for n more.
func Full(quota, used, n int64) error {
	return fmt.Errorf("%w: the sandbox holds %s of its %s; remove files from it to make room for %s more",
		workspace.ErrQuotaExceeded, Size(used), Size(quota), Size(n))
}

// Limit is what a command may take its sandbox to: its quota, or what
// the sandbox held when the command started (before) if that was more,
// so that a command run to remove files is not ended. A sandbox that
// could not be measured then (err) is held to the quota. So before
// matters only when it is over the quota: a sandbox known to be within
// it need not be measured again before a command, and a before that
// understates what the sandbox holds can only make the limit stricter.
func Limit(quota, before int64, err error) int64 {
	if err != nil {
		return quota
	}
	return max(quota, before)
}

// Watch measures a sandbox while its command runs.
type Watch struct {
	stop, done chan struct{}
	cancel     context.CancelFunc
	over       bool  // set before done is closed
	failed     error // the failed measurement that ended the command
}

// Start measures with measure every [Interval] (a measurement that takes
// longer is followed at once by the next), and calls over, once, when
// the sandbox holds more than limit() bytes or cannot be measured. limit
// is asked each time, so that it may learn late what the sandbox held
// when the command started. The context given to measure ends with the
// watch. The caller must call Stop.
func Start(measure func(context.Context) (int64, error), limit func() int64, over func()) *Watch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watch{stop: make(chan struct{}), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(w.done)
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			used, err := measure(ctx)
			select {
			case <-w.stop:
				// A measurement cut short by the command's end is not
				// the command's failure.
				return
			default:
			}
			if err != nil || used > limit() {
				w.over, w.failed = true, err
				over()
				return
			}
		}
	}()
	return w
}

// Stop ends the watch and reports whether it ended the command: over,
// and the failed measurement that did, if one did.
func (w *Watch) Stop() (over bool, failed error) {
	close(w.stop)
	w.cancel()
	<-w.done
	return w.over, w.failed
}

// Note returns the line that ends a command's stderr when its sandbox,
// measured after it (used, or err), is over quota, or was ended by its
// watch (over, failed); "" when all is well. who names the sandbox's
// package, such as "localsandbox".
func Note(who string, quota, used int64, err error, over bool, failed error) string {
	switch {
	case quota < 0:
		return ""
	case failed != nil:
		return fmt.Sprintf("%s: the command was ended: the sandbox's disk use cannot be measured (%v); remove files or directories to go on",
			who, failed)
	case err != nil:
		return fmt.Sprintf("%s: the sandbox's disk use cannot be measured (%v), so files cannot be written or uploaded until that is mended", who, err)
	case over:
		return fmt.Sprintf("%s: the command was ended: it took the sandbox over its %s disk quota (%s used); remove files to go on",
			who, Size(quota), Size(used))
	case used > quota:
		return fmt.Sprintf("%s: the sandbox is over its %s disk quota (%s used): files cannot be written or uploaded until some are removed",
			who, Size(quota), Size(used))
	}
	return ""
}

var sizeUnits = []struct {
	shift uint
	name  string
}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}

// Size writes a byte count for people in the largest binary unit it
// reaches: "1 GiB" or "512 MiB" when exact, else "1.5 GiB", "9.5 MiB",
// "17 B".
func Size(n int64) string {
	for _, u := range sizeUnits {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return fmt.Sprintf("%d %s", n>>u.shift, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int64(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
