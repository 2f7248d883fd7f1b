package localsandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"github.com/keel-go/keel/workspace"
)

// The disk quota has no help from the file system: sandboxes are plain
// directories, and project quotas need a file system set up for them. So
// keel measures the directory (the blocks its files hold, each file once)
// before a command, while it runs, after it, and before each write. A
// command can go over the quota by what it writes between two
// measurements; RLIMIT_FSIZE bounds each of its files.

// minQuotaInterval is how often a running command's sandbox is measured
// at most; a large directory is measured less often, so that measuring
// takes at most a twentieth of the time.
const minQuotaInterval = 500 * time.Millisecond

// diskUsage returns how many bytes the tree at dir holds on disk: the
// blocks of every file, directory and link, a file with several links
// counted once. Files that vanish while it walks are skipped; a directory
// it cannot read is an error, so that a command cannot hide files from
// the quota.
func diskUsage(dir string) (int64, error) {
	type inode struct{ dev, ino uint64 }
	var (
		total int64
		seen  map[inode]bool
	)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		if st.Nlink > 1 && !info.IsDir() {
			if seen == nil {
				seen = make(map[inode]bool)
			}
			k := inode{uint64(st.Dev), st.Ino}
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		total += st.Blocks * 512
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("measure disk use of the sandbox: %w", err)
	}
	return total, nil
}

// checkRoom returns an error wrapping [workspace.ErrQuotaExceeded] when
// adding n bytes would take the sandbox over its quota.
func (s *Sandbox) checkRoom(n int64) error {
	quota := s.opts.Limits.Disk
	if quota < 0 {
		return nil
	}
	used, err := diskUsage(s.dir)
	if err != nil {
		return fmt.Errorf("%w: %v", workspace.ErrQuotaExceeded, err)
	}
	if used+n > quota {
		return fmt.Errorf("%w: the sandbox holds %s of its %s; remove files from it to make room for %s more",
			workspace.ErrQuotaExceeded, Size(used), Size(quota), Size(n))
	}
	return nil
}

// quotaWatch measures a sandbox while its command runs and calls over
// when the command took it over its quota: above the quota, or above what
// the sandbox already held when it started over it (so that a command
// run to remove files is not ended).
type quotaWatch struct {
	dir        string
	quota      int64
	stop, done chan struct{}
	over       bool // set before done is closed
}

// watchQuota measures dir and starts watching it; the caller must call
// finish. A quota below zero watches nothing.
func watchQuota(dir string, quota int64, over func()) *quotaWatch {
	w := &quotaWatch{dir: dir, quota: quota, stop: make(chan struct{}), done: make(chan struct{})}
	if quota < 0 {
		close(w.done)
		return w
	}
	// A sandbox that cannot be measured now is held to its quota.
	before, _ := diskUsage(dir)
	limit := max(quota, before)
	go func() {
		defer close(w.done)
		interval := minQuotaInterval
		t := time.NewTimer(interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			start := time.Now()
			used, err := diskUsage(dir)
			if err == nil && used > limit {
				w.over = true
				over()
				return
			}
			interval = max(minQuotaInterval, 20*time.Since(start))
			t.Reset(interval)
		}
	}()
	return w
}

// finish stops the watch, measures the sandbox and returns the line to
// end the command's stderr with, "" when it is within its quota.
func (w *quotaWatch) finish() string {
	close(w.stop)
	<-w.done
	if w.quota < 0 {
		return ""
	}
	used, err := diskUsage(w.dir)
	switch {
	case err != nil:
		return fmt.Sprintf("localsandbox: the sandbox's disk use cannot be measured (%v), so files cannot be written or uploaded until that is mended", err)
	case w.over:
		return fmt.Sprintf("localsandbox: the command was ended: it took the sandbox over its %s disk quota (%s used); remove files to go on",
			Size(w.quota), Size(used))
	case used > w.quota:
		return fmt.Sprintf("localsandbox: the sandbox is over its %s disk quota (%s used): files cannot be written or uploaded until some are removed",
			Size(w.quota), Size(used))
	}
	return ""
}
