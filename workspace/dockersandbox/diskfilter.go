package dockersandbox

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/keel-go/keel/workspace/internal/capped"
)

// The wrapper reports the working directory's size on the command's
// stderr with keel_du's line (see measureFunc): before the command starts
// (nothing else can write there before it), "keel-du STATUS [BYTES]",
// measured then or the last measurement (see wrapperScript);
// after the command's processes were ended, "\nkeel-du TOKEN\n" and that
// line again (the token, random per exec, keeps a command's own output
// from being taken for it by chance). diskFilter takes both out of the
// stderr a command's result shows, whatever the cap on output, so that
// measuring costs no exec of its own.

// tailSize is how much of the end of stderr is kept to find the last
// lines in: more than the longest.
const tailSize = 128

// Why keel_du could not measure.
var (
	errNotMeasured  = errors.New("the sandbox was not measured")
	errTooManyFiles = errors.New("it holds more files than its limit")
	errUnreadable   = errors.New("du could not read all of it (a directory nested past PATH_MAX, or one that cannot be read)")
)

// parseMeasure reads keel_du's line.
func parseMeasure(line []byte) (int64, error) {
	rest, ok := bytes.CutPrefix(line, []byte("keel-du "))
	if !ok {
		return 0, errNotMeasured
	}
	status, value, _ := strings.Cut(string(rest), " ")
	switch status {
	case "0":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return 0, errNotMeasured
		}
		return n, nil
	case "1":
		return 0, errUnreadable
	case "2":
		return 0, errTooManyFiles
	}
	return 0, errNotMeasured
}

// diskFilter is the stderr writer of an exec.
type diskFilter struct {
	measure bool
	token   string

	// headSeen is closed once the first line was read (at once when
	// there is none to read).
	headSeen chan struct{}

	mu        sync.Mutex
	headDone  bool
	head      []byte
	before    int64
	beforeErr error
	out       capped.Buffer
	tail      []byte
	written   int64 // bytes after the first line
	maxOutput int
}

func newDiskFilter(maxOutput int, token string, measure bool) *diskFilter {
	// The cap leaves room for the last lines, which are taken out at the
	// end.
	f := &diskFilter{measure: measure, token: token, headDone: !measure, maxOutput: maxOutput,
		beforeErr: errNotMeasured, out: capped.Buffer{Max: maxOutput + tailSize}, headSeen: make(chan struct{})}
	if !measure {
		close(f.headSeen)
	}
	return f
}

func (f *diskFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	if !f.headDone {
		// The head is one line.
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.head = append(f.head, p...)
			return n, nil
		}
		f.before, f.beforeErr = parseMeasure(append(f.head, p[:i]...))
		f.head, f.headDone = nil, true
		close(f.headSeen)
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
// wrapper reported it: errNotMeasured until then.
func (f *diskFilter) beforeValue() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.before, f.beforeErr
}

// afterValue returns the size measured after the command, from the last
// lines.
func (f *diskFilter) afterValue() (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, _, err := f.last()
	return v, err
}

// last finds the lines after the command: their value (or why there is
// none) and their length, 0 when they are not there.
func (f *diskFilter) last() (v int64, n int, err error) {
	if !f.measure || len(f.tail) == 0 || f.tail[len(f.tail)-1] != '\n' {
		return 0, 0, errNotMeasured
	}
	marker := []byte("\nkeel-du " + f.token + "\n")
	i := bytes.LastIndex(f.tail, marker)
	if i < 0 {
		return 0, 0, errNotMeasured
	}
	line := f.tail[i+len(marker) : len(f.tail)-1]
	if bytes.IndexByte(line, '\n') >= 0 || !bytes.HasPrefix(line, []byte("keel-du ")) {
		return 0, 0, errNotMeasured
	}
	v, err = parseMeasure(line)
	return v, len(f.tail) - i, err
}

// result returns the command's own stderr and whether some was dropped
// by the cap.
func (f *diskFilter) result() ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	user := f.written
	if _, n, _ := f.last(); n > 0 {
		user -= int64(n)
	}
	out := f.out.Bytes()
	keep := min(int64(len(out)), user, int64(f.maxOutput))
	return out[:keep], user > int64(f.maxOutput)
}
