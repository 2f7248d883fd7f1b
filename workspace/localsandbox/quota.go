package localsandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/keel-go/keel/workspace/internal/diskquota"
)

// The disk quota has no help from the file system: sandboxes are plain
// directories, and project quotas need a file system set up for them. So
// keel measures the directory (the blocks its files hold, each file once)
// before a command, while it runs, after it, and before each write. A
// command can go over the quota by what it writes between two
// measurements; RLIMIT_FSIZE bounds each of its files.

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
	if s.opts.Limits.Disk < 0 {
		return nil
	}
	used, err := diskUsage(s.dir)
	return diskquota.Room(s.opts.Limits.Disk, used, n, err)
}

// quotaWatch measures a sandbox while its command runs and calls over
// when the command took it over its quota: above the quota, or above what
// the sandbox already held when it started over it (so that a command
// run to remove files is not ended).
type quotaWatch struct {
	dir   string
	quota int64
	w     *diskquota.Watch
}

// watchQuota measures dir and starts watching it; the caller must call
// finish. A quota below zero watches nothing.
func watchQuota(dir string, quota int64, over func()) *quotaWatch {
	q := &quotaWatch{dir: dir, quota: quota}
	if quota < 0 {
		return q
	}
	// A sandbox that cannot be measured now is held to its quota.
	before, _ := diskUsage(dir)
	limit := max(quota, before)
	q.w = diskquota.Start(func() (int64, error) { return diskUsage(dir) }, func() int64 { return limit }, over)
	return q
}

// finish stops the watch, measures the sandbox and returns the line to
// end the command's stderr with, "" when it is within its quota.
func (q *quotaWatch) finish() string {
	if q.w == nil {
		return ""
	}
	over := q.w.Stop()
	used, err := diskUsage(q.dir)
	return diskquota.Note("localsandbox", q.quota, used, err, over)
}
