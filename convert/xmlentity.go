package convert

import (
	"bytes"
	"unicode/utf8"
)

// decodeEntities appends src to dst with the predefined entities and
// character references decoded and line ends normalised to "\n"; ok is
// false for any other entity or a bad reference.
func decodeEntities(dst, src []byte) ([]byte, bool) {
	for len(src) > 0 {
		i := bytes.IndexAny(src, "&\r")
		if i < 0 {
			return append(dst, src...), true
		}
		dst = append(dst, src[:i]...)
		src = src[i:]
		if src[0] == '\r' {
			dst = append(dst, '\n')
			src = src[1:]
			if len(src) > 0 && src[0] == '\n' {
				src = src[1:]
			}
			continue
		}
		j := bytes.IndexByte(src, ';')
		if j < 0 || j > 12 {
			return dst, false
		}
		name := src[1:j]
		src = src[j+1:]
		switch string(name) {
		case "lt":
			dst = append(dst, '<')
		case "gt":
			dst = append(dst, '>')
		case "amp":
			dst = append(dst, '&')
		case "apos":
			dst = append(dst, '\'')
		case "quot":
			dst = append(dst, '"')
		default:
			r, ok := charRef(name)
			if !ok {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst, true
}

func charRef(name []byte) (rune, bool) {
	if len(name) < 2 || name[0] != '#' {
		return 0, false
	}
	base, digits := 10, name[1:]
	if digits[0] == 'x' {
		base, digits = 16, digits[1:]
	}
	if len(digits) == 0 {
		return 0, false
	}
	var r rune
	for _, c := range digits {
		var d rune
		switch {
		case '0' <= c && c <= '9':
			d = rune(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, false
		}
		r = r*rune(base) + d
		if r > utf8.MaxRune {
			return 0, false
		}
	}
	if r == 0 || !utf8.ValidRune(r) {
		return 0, false
	}
	return r, true
}

func appendNewlines(dst, src []byte) []byte {
	if bytes.IndexByte(src, '\r') < 0 {
		return append(dst, src...)
	}
	for i := 0; i < len(src); i++ {
		if src[i] == '\r' {
			dst = append(dst, '\n')
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			continue
		}
		dst = append(dst, src[i])
	}
	return dst
}
