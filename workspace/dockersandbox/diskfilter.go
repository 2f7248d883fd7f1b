package dockersandbox

import (
	"bytes"
	"strconv"
	"sync"
)

// The wrapper reports the working directory's size on the command's
// stderr: a first line "keel-du KIB" written before the command starts
// (nothing else can write there before it), and a last line
// "\nkeel-du TOKEN KIB" written after the command's processes were ended
// (the token, random per exec, keeps a command's own output from being
// taken for it by chance). KIB is "-" when du failed. diskFilter takes
// both out of the stderr a command's result shows, whatever the cap on
// output, so that measuring costs no exec of its own.

// tailSize is how much of the end of stderr is kept to find the last
// line in: more than the longest one.
const tailSize = 128

// diskFilter is the stderr writer of an exec.
type diskFilter struct {
	measure bool
	token   string

	mu        sync.Mutex
	headDone  bool
	head      []byte
	before    int64
	beforeOK  bool
	out       cappedBuffer
	tail      []byte
	written   int64 // bytes after the first line
	maxOutput int
}

func newDiskFilter(maxOutput int, token string, measure bool) *diskFilter {
	// The cap leaves room for the last line, which is taken out at the
	// end.
	return &diskFilter{measure: measure, token: token, headDone: !measure, maxOutput: maxOutput,
		out: cappedBuffer{max: maxOutput + tailSize}}
}

func (f *diskFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	if !f.headDone {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.head = append(f.head, p...)
			return n, nil
		}
		f.head = append(f.head, p[:i]...)
		f.headDone = true
		f.before, f.beforeOK = parseKiB(bytes.TrimPrefix(f.head, []byte("keel-du ")))
		p = p[i+1:]
	}
	f.written += int64(len(p))
	_, _ = f.out.Write(p)
	f.tail = append(f.tail, p...)
	if len(f.tail) > 2*tailSize {
		f.tail = append(f.tail[:0], f.tail[len(f.tail)-tailSize:]...)
	}
	return n, nil
}

// beforeValue returns the size measured before the command, once the
// wrapper reported it.
func (f *diskFilter) beforeValue() (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.before, f.beforeOK
}

// afterValue returns the size measured after the command, from the last
// line.
func (f *diskFilter) afterValue() (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, _, _, ok := f.last()
	return v, ok
}

// last finds the last line: its value and length, whether there is
// one, and whether its value is a size (not "-").
func (f *diskFilter) last() (v int64, n int, found, ok bool) {
	if !f.measure || len(f.tail) == 0 || f.tail[len(f.tail)-1] != '\n' {
		return 0, 0, false, false
	}
	marker := []byte("\nkeel-du " + f.token + " ")
	i := bytes.LastIndex(f.tail, marker)
	if i < 0 {
		return 0, 0, false, false
	}
	line := f.tail[i+len(marker) : len(f.tail)-1]
	if bytes.IndexByte(line, '\n') >= 0 {
		return 0, 0, false, false
	}
	v, ok = parseKiB(line)
	if !ok && string(line) != "-" {
		return 0, 0, false, false
	}
	return v, len(f.tail) - i, true, ok
}

// result returns the command's own stderr and whether some was dropped
// by the cap.
func (f *diskFilter) result() ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	user := f.written
	if _, n, found, _ := f.last(); found {
		user -= int64(n)
	}
	out := f.out.bytes()
	keep := min(int64(len(out)), user, int64(f.maxOutput))
	return out[:keep], user > int64(f.maxOutput)
}

// parseKiB reads du's KiB count as bytes.
func parseKiB(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n << 10, true
}
