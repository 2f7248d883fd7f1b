package localsandbox

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Measuring a sandbox must not be something a command can blind or
// stretch. So the walk goes from descriptor to descriptor (openat and
// fstatat below the directory's own descriptor, never a path from the
// top, so a tree deeper than PATH_MAX is measured like any other), never
// follows a link, counts each file by the larger of its allocated and
// its apparent size (fallocate reserves blocks without growing the size,
// truncate grows the size without blocks: both are bytes the sandbox may
// later hand to keel or the disk), and stops with an error past a number
// of files or a depth, which ends the command as if it went over.

// maxMeasureDepth bounds the directories the walk holds open at once.
const maxMeasureDepth = 1024

// errTooManyFiles and errTooDeep end a measurement.
var (
	errTooManyFiles = errors.New("it holds more files than its limit")
	errTooDeep      = fmt.Errorf("it holds directories nested more than %d deep", maxMeasureDepth)
)

// usage is what a measurement found.
type usage struct {
	bytes int64 // each file's larger of allocated and apparent size
	files int64 // every entry, directories and links included
}

// measure walks the tree at dir. maxFiles (above 0) stops it with
// errTooManyFiles once the tree holds more entries than that.
func measure(dir string, maxFiles int64) (usage, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return usage{}, fmt.Errorf("measure disk use of the sandbox: %w", err)
	}
	m := &measurer{max: maxFiles}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return usage{}, fmt.Errorf("measure disk use of the sandbox: %w", err)
	}
	m.add(&st)
	err = m.walk(fd, 1)
	if err != nil {
		return m.u, fmt.Errorf("measure disk use of the sandbox: %w", err)
	}
	return m.u, nil
}

type measurer struct {
	u    usage
	max  int64
	seen map[[2]uint64]bool // inodes with several links, counted once
}

func (m *measurer) add(st *unix.Stat_t) {
	m.u.files++
	if st.Nlink > 1 && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if m.seen == nil {
			m.seen = make(map[[2]uint64]bool)
		}
		k := [2]uint64{uint64(st.Dev), st.Ino}
		if m.seen[k] {
			return
		}
		m.seen[k] = true
	}
	m.u.bytes += max(st.Blocks*512, st.Size)
}

// walk counts what the directory fd holds, and closes fd.
func (m *measurer) walk(fd, depth int) error {
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	for {
		names, err := f.Readdirnames(512)
		for _, name := range names {
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if errors.Is(err, unix.ENOENT) {
					continue // removed meanwhile
				}
				return err
			}
			m.add(&st)
			if m.max > 0 && m.u.files > m.max {
				return errTooManyFiles
			}
			if st.Mode&unix.S_IFMT != unix.S_IFDIR {
				continue
			}
			if depth >= maxMeasureDepth {
				return errTooDeep
			}
			sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
					continue // removed or replaced meanwhile
				}
				return err
			}
			if err := m.walk(sub, depth+1); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
