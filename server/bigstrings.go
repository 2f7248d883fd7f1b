package server

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"unsafe"
)

// Long strings (files as base64 or data: URLs) would make encoding/json
// scan a body byte by byte twice (validation, then decoding) and copy it
// again. liftStrings takes them out of the body first, in one pass that
// only looks for quotes, and leaves a short placeholder in their place;
// the JSON left is small, and the placeholders are put back in the decoded
// value.

// liftMin is the length from which a string literal is lifted out.
const liftMin = 4 << 10

// liftTag starts every placeholder: a NUL (which no string lifted out can
// hold) and a per-process random tag, so that a caller cannot forge one.
var liftTag = func() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "\x00keel-" + hex.EncodeToString(b[:]) + ":"
}()

// lifted holds the strings taken out of a body.
type lifted struct {
	strs []string
}

// liftStrings returns body with every string literal of at least liftMin
// bytes that is printable ASCII without escapes replaced by a
// placeholder, and the strings taken out. Anything else is left for
// encoding/json, so what the body means is unchanged.
//
// The strings taken out share body's memory rather than copy it (a
// megabyte file would cost a megabyte allocated, cleared and copied), so
// body must not change once it is given here: the caller reads it for
// this call only and drops it.
func liftStrings(body []byte) ([]byte, *lifted) {
	var out []byte
	var l *lifted
	last := 0 // body[:last] is already in out
	for pos := 0; pos < len(body); {
		i := bytes.IndexByte(body[pos:], '"')
		if i < 0 {
			break
		}
		start := pos + i + 1 // first byte of the string's content
		end, plain := stringEnd(body, start)
		if end < 0 {
			break // malformed: encoding/json reports it
		}
		if plain && end-start >= liftMin && printableASCII(body[start:end]) {
			if l == nil {
				l = &lifted{}
				out = make([]byte, 0, 1024)
			}
			out = append(out, body[last:start]...)
			out = append(out, `\u0000`...)
			out = append(out, liftTag[1:]...)
			out = strconv.AppendInt(out, int64(len(l.strs)), 10)
			l.strs = append(l.strs, unsafe.String(&body[start], end-start))
			last = end
		}
		pos = end + 1
	}
	if l == nil {
		return body, nil
	}
	return append(out, body[last:]...), l
}

// stringEnd returns the index of the quote closing the string whose
// content starts at start, and whether the string holds no backslash; -1
// when it is not closed.
func stringEnd(b []byte, start int) (int, bool) {
	plain := true
	for i := start; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1, false
		}
		seg := b[i : i+j]
		if bytes.IndexByte(seg, '\\') < 0 {
			return i + j, plain
		}
		plain = false
		// Count the backslashes just before the quote: an odd number
		// escapes it.
		n := 0
		for k := i + j - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + j, false
		}
		i += j + 1
	}
	return -1, false
}

// printableASCII reports whether every byte of b is in 0x20..0x7e, eight
// bytes at a time.
func printableASCII(b []byte) bool {
	const hi, lo, del = 0x8080808080808080, 0x2020202020202020, 0x0101010101010101
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		// A byte with its top bit set, below 0x20, or 0x7f fails.
		below := (x - lo) & ^x & hi
		isDel := ((x ^ (del * 0x7f)) - del) & ^(x ^ (del * 0x7f)) & hi
		if x&hi != 0 || below != 0 || isDel != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// restore puts the lifted strings back into v, a value decoded from the
// lifted body, and returns it.
func (l *lifted) restore(v any) any {
	if l == nil {
		return v
	}
	switch v := v.(type) {
	case string:
		if rest, ok := strings.CutPrefix(v, liftTag); ok {
			if i, err := strconv.Atoi(rest); err == nil && i >= 0 && i < len(l.strs) {
				return l.strs[i]
			}
		}
		return v
	case []any:
		for i := range v {
			v[i] = l.restore(v[i])
		}
		return v
	case map[string]any:
		for k, x := range v {
			if key := l.restoreString(k); key != k {
				delete(v, k)
				k = key
			}
			v[k] = l.restore(x)
		}
		return v
	default:
		return v
	}
}

// restoreString is restore for a string field.
func (l *lifted) restoreString(s string) string {
	r, _ := l.restore(s).(string)
	return r
}
