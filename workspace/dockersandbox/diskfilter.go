package dockersandbox

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
)

// The wrapper reports the working directory's size on the command's
// stderr: before the command starts (nothing else can write there
// before it), du's line and then "keel-du STATUS"; after the command's
// processes were ended, "\nkeel-du TOKEN\n", du's line and
// "keel-du STATUS" (the token, random per exec, keeps a command's own
// output from being taken for it by chance). du's line is "KIB\t.";
// a STATUS other than 0 means du could not read everything. diskFilter
// takes both out of the stderr a command's result shows, whatever the
// cap on output, so that measuring costs no exec of its own.

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
	duValue   int64
	duOK      bool
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
		// The head ends with the line that starts "keel-du ".
		for !f.headDone {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				f.head = append(f.head, p...)
				return n, nil
			}
			line := append(f.head, p[:i]...)
			p = p[i+1:]
			if status, ok := bytes.CutPrefix(line, []byte("keel-du ")); ok {
				f.headDone = true
				if string(status) == "0" {
					f.before, f.beforeOK = f.duValue, f.duOK
				}
			} else {
				f.duValue, f.duOK = parseDu(line)
			}
			f.head = f.head[:0]
		}
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

// last finds the lines after the command: their value and length,
// whether they are there, and whether du measured everything.
func (f *diskFilter) last() (v int64, n int, found, ok bool) {
	if !f.measure || len(f.tail) == 0 || f.tail[len(f.tail)-1] != '\n' {
		return 0, 0, false, false
	}
	marker := []byte("\nkeel-du " + f.token + "\n")
	i := bytes.LastIndex(f.tail, marker)
	if i < 0 {
		return 0, 0, false, false
	}
	lines := strings.Split(string(f.tail[i+len(marker):len(f.tail)-1]), "\n")
	status, isStatus := strings.CutPrefix(lines[len(lines)-1], "keel-du ")
	if !isStatus || len(lines) > 2 {
		return 0, 0, false, false
	}
	if status == "0" && len(lines) == 2 {
		v, ok = parseDu([]byte(lines[0]))
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

// parseDu reads du -sk's line, "KIB\t.", as bytes.
func parseDu(line []byte) (int64, bool) {
	kib, _, _ := bytes.Cut(line, []byte("\t"))
	n, err := strconv.ParseInt(string(kib), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n << 10, true
}
