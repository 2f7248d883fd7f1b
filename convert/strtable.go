package convert

// stringTable holds a workbook's shared strings end to end in one
// buffer, with where each starts: a string costs its bytes and four
// more, not a string header and an allocation of its own. What it may
// hold is bounded by [Limits].MaxStringBytes, counting the four bytes of
// each string too, and by [Limits].MaxStrings, so that a table of fifty
// million empty strings (a few hundred kilobytes deflated) stops at the
// limit instead of taking gigabytes, and a table of millions of short
// ones stops before reading them costs seconds.
//
// It is not grown by doubling, which would leave the old copies as
// garbage, up to four times the table's size at the peak: the buffer's
// size is known from the size of the part the strings come from, which
// their text never exceeds (every byte of text takes at least one byte
// of XML), and the starts are kept in blocks of a fixed size. The buffer
// starts at 4 MiB all the same and takes its full size (up to
// MaxStringBytes) only when the strings need it, with one copy of those
// 4 MiB: most tables, and the bombs of millions of empty or one-letter
// strings, never need it, and clearing 32 MiB for each of them took a
// fifth of their time.
type stringTable struct {
	buf   []byte
	size  int        // the buffer's full size
	off   [][]uint32 // off[i>>offShift][i&offMask] is where string i starts
	n     int
	used  int64
	max   int64
	count int // strings at most
}

// firstStrings is the size the buffer starts at.
const firstStrings = 4 << 20

const (
	offShift = 16
	offMask  = 1<<offShift - 1
)

// newStringTable returns a table for the strings of a part of xmlSize
// bytes, under the limits of lim.
func newStringTable(lim Limits, xmlSize uint64) *stringTable {
	max := lim.MaxStringBytes
	size := int(min(xmlSize, uint64(max)))
	return &stringTable{max: max, count: lim.MaxStrings, size: size, buf: make([]byte, 0, min(size, firstStrings))}
}

func (t *stringTable) limitErr() error {
	return limitErr("", "bytes of strings (4 more for each shared string)", t.max)
}

// start begins a string: the caller appends its bytes to the slice
// returned, at most its capacity (so that they land in the buffer), and
// gives them to end. The capacity is what the limit leaves, or the
// buffer's room if less; past it, the caller asks for more, and only
// when there is none does the string not fit. The text of a part never
// exceeds the part's size (archive/zip checks that size), so once the
// buffer has its full size only the limit can run out.
func (t *stringTable) start() []byte {
	room := max(t.max-t.used-4, 0)
	free := t.buf[len(t.buf):cap(t.buf)]
	return free[:0:min(int64(len(free)), room)]
}

// more gives the buffer its full size, for the string begun with start
// whose bytes so far are item, and returns item in the new buffer, with
// the capacity start would give now; ok is false when the buffer has its
// full size already, or the limit leaves no more room: the string does
// not fit.
func (t *stringTable) more(item []byte) (_ []byte, ok bool) {
	room := max(t.max-t.used-4, 0)
	if cap(t.buf) >= t.size || int64(cap(item)) >= room {
		return item, false
	}
	n := len(item)
	nb := make([]byte, len(t.buf), t.size)
	copy(nb[:len(t.buf)+n], t.buf[:len(t.buf)+n])
	t.buf = nb
	return t.start()[:n], true
}

// end adds the string begun with start, s being its bytes.
func (t *stringTable) end(s []byte) error {
	t.used += int64(len(s)) + 4
	if t.used > t.max {
		return t.limitErr()
	}
	if t.n >= t.count {
		return limitErr("", "shared strings", int64(t.count))
	}
	if t.n&offMask == 0 {
		t.off = append(t.off, make([]uint32, 1<<offShift))
	}
	// A store into a block made at its full length: appending to the
	// block would store its slice header back into off, a pointer write
	// that the garbage collector's write barrier slows for every string
	// while it runs, as it does all along a table of millions.
	t.off[t.n>>offShift][t.n&offMask] = uint32(len(t.buf))
	t.buf = t.buf[:len(t.buf)+len(s)]
	t.n++
	return nil
}

func (t *stringTable) at(i int) int { return int(t.off[i>>offShift][i&offMask]) }

// get returns string i; ok is false when there is none. The bytes are
// the table's own: callers that keep them copy them.
func (t *stringTable) get(i int) ([]byte, bool) {
	if i < 0 || i >= t.n {
		return nil, false
	}
	end := len(t.buf)
	if i+1 < t.n {
		end = t.at(i + 1)
	}
	return t.buf[t.at(i):end], true
}
