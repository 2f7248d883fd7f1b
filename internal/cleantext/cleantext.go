package cleantext

import (
	"strings"
	"unicode/utf8"
)

// Line strips escape sequences and control characters from s, which
// comes from outside (a sender, a file's content) and is to be shown on
// one line, and cuts it to max characters; "" stays "".
func Line(s string, max int) string {
	var b strings.Builder
	b.Grow(len(s))
	n := 0
	for i := 0; i < len(s) && n < max; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b || r == 0x9b:
			i += escapeLen(s[i:])
			continue
		case isControl(r):
		default:
			b.WriteRune(r) // RuneError for invalid bytes: U+FFFD.
			n++
		}
		i += size
	}
	return b.String()
}

func isControl(r rune) bool { return r <= 0x1f || r >= 0x7f && r <= 0x9f }

// escapeLen returns the length of the escape sequence at the start of s,
// which starts with ESC (0x1b) or the C1 CSI (U+009B). It follows ECMA-48:
// CSI sequences end at a final byte in 0x40–0x7E; OSC, DCS, SOS, PM and APC
// strings end at BEL or ST; other escapes are ESC, intermediate bytes and
// one final byte. An unterminated sequence runs to the end of s, so no part
// of it can reach the output.
func escapeLen(s string) int {
	if s[0] != 0x1b {
		// U+009B, two bytes in UTF-8.
		return 2 + csiLen(s[2:])
	}
	if len(s) == 1 {
		return 1
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', 'X', '^', '_':
		return 2 + stringLen(s[2:])
	}
	i := 1
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// csiLen returns the length of a control sequence's parameters,
// intermediates and final byte.
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			// Not part of a control sequence: the sequence is malformed
			// and ends here; the byte itself is judged on its own.
			return i
		}
	}
	return len(s)
}

// stringLen returns the length of a control string and its terminator:
// BEL, ESC \ or the C1 ST (U+009C).
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + 2
		}
	}
	return len(s)
}

// Short is s as [Line] makes it, its runs of white space (line breaks
// included) one space each, and, past n characters, cut to n with "…"
// last: a message or a name shown in a sentence.
func Short(s string, n int) string {
	s = Line(strings.Join(strings.Fields(s), " "), n+1)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
