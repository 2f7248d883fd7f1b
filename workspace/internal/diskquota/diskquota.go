// Package diskquota holds a sandbox's disk quota when no file system
// quota does: the sandbox's size is measured before each write, and while
// and after each command, by whatever means the sandbox has (a walk of a
// host directory, du in a container). It decides and words; measuring is
// the caller's.
package diskquota

import (
	"fmt"
	"time"

	"github.com/keel-go/keel/workspace"
)

// MinInterval is how often a running command's sandbox is measured at
// most; a sandbox that takes long to measure is measured less often, so
// that measuring takes at most a twentieth of the time.
const MinInterval = 500 * time.Millisecond

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
		return fmt.Errorf("%w: the sandbox holds %s of its %s; remove files from it to make room for %s more",
			workspace.ErrQuotaExceeded, Size(used), Size(quota), Size(n))
	}
	return nil
}

// Watch measures a sandbox while its command runs.
type Watch struct {
	stop, done chan struct{}
	over       bool // set before done is closed
}

// Start measures with measure every [MinInterval] or more, and calls
// over, once, when the sandbox holds more than limit() bytes (limit is
// asked each time, so that it may learn what the sandbox held when the
// command started). The caller must call Stop.
func Start(measure func() (int64, error), limit func() int64, over func()) *Watch {
	w := &Watch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		interval := MinInterval
		t := time.NewTimer(interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			start := time.Now()
			used, err := measure()
			if err == nil && used > limit() {
				w.over = true
				over()
				return
			}
			interval = max(MinInterval, 20*time.Since(start))
			t.Reset(interval)
		}
	}()
	return w
}

// Stop ends the watch and reports whether it found the sandbox over its
// limit.
func (w *Watch) Stop() bool {
	close(w.stop)
	<-w.done
	return w.over
}

// Note returns the line that ends a command's stderr when its sandbox,
// measured after it (used, or err), is over quota, or was ended for going
// over (over); "" when all is well. who names the sandbox's package, such
// as "localsandbox".
func Note(who string, quota, used int64, err error, over bool) string {
	switch {
	case quota < 0:
		return ""
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
