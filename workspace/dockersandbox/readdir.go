package dockersandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/keel-go/keel/workspace"
)

// maxListing caps what a listing command may print: far more than the
// names and sizes of any directory a person lists.
const maxListing = 64 << 20

// listScript lists the directory $1: the number of entries, their names
// each ended by a NUL (names hold anything else, newlines included), then
// a line "MODE SIZE MTIME" for each (mode in hex, as stat(2) gives it), in
// the same order. A link is described, not what it points to.
const listScript = `cd -- "$1" || exit 3
set --
for f in * .[!.]* ..?*; do
	if [ -e "$f" ] || [ -h "$f" ]; then set -- "$@" "$f"; fi
done
printf '%d\n' $#
[ $# -eq 0 ] && exit 0
printf '%s\0' "$@"
exec stat -c '%f %s %Y' -- "$@"`

// ReadDir lists the directory at name ("" or "." for the working
// directory), sorted by name, following symbolic links inside the
// sandbox to it. It runs a command in the container: the archive API has
// no listing.
func (s *Sandbox) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	var entries []fs.DirEntry
	err := s.withContainer(ctx, "read dir", name, func() error {
		r, err := s.resolve(ctx, name, true)
		switch {
		case err != nil:
			return err
		case r.st == nil:
			return fs.ErrNotExist
		case !r.st.Mode.IsDir():
			return syscall.ENOTDIR
		}
		res, err := s.exec(ctx, execRequest{line: "set -- " + workspace.ShellQuote(r.abs) + "\n" + listScript,
			timeout: s.opts.CommandTimeout, maxOutput: maxListing})
		switch {
		case err != nil:
			return err
		case res.truncated:
			return fmt.Errorf("the listing is over %d bytes", maxListing)
		case res.exit != 0:
			return fmt.Errorf("list: exit status %d: %s", res.exit, strings.TrimSpace(string(res.stderr)))
		}
		entries, err = parseListing(res.stdout)
		return err
	})
	return entries, err
}

// parseListing reads listScript's output.
func parseListing(out []byte) ([]fs.DirEntry, error) {
	line, rest, ok := bytes.Cut(out, []byte("\n"))
	n, err := strconv.Atoi(string(line))
	if !ok || err != nil || n < 0 {
		return nil, fmt.Errorf("list: unexpected output %q", clip(out))
	}
	entries := make([]fs.DirEntry, 0, n)
	names := make([]string, n)
	for i := range n {
		name, tail, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, errors.New("list: output cut short")
		}
		names[i], rest = string(name), tail
	}
	lines := strings.Split(strings.TrimSuffix(string(rest), "\n"), "\n")
	if n == 0 {
		return entries, nil
	}
	if len(lines) != n {
		return nil, fmt.Errorf("list: %d names but %d descriptions", n, len(lines))
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, fmt.Errorf("list: unexpected description %q", l)
		}
		mode, err1 := strconv.ParseUint(f[0], 16, 32)
		size, err2 := strconv.ParseInt(f[1], 10, 64)
		mtime, err3 := strconv.ParseInt(f[2], 10, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("list: description %q: %w", l, err)
		}
		entries = append(entries, fs.FileInfoToDirEntry(fileInfo{pathStat{
			Name: names[i], Size: size, Mode: fileMode(uint32(mode)), Mtime: time.Unix(mtime, 0)}}))
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// fileMode turns a stat(2) mode into an fs.FileMode, as os does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// clip shortens output for an error message.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
