package pdf

import (
	"io"
	"strconv"
)

// lexer reads PDF tokens from buf and, once buf is used up, from r into
// buf again: objects of the file are read from a slice of it (r nil),
// content streams from their decoder through a small window, so that a
// content stream of any size costs the window and no more.
type lexer struct {
	buf []byte
	pos int
	r   io.Reader
	err error // the reader's error, io.EOF at the end
	win []byte

	// scratch holds the bytes of the token read last (a name, a number,
	// a string, a keyword); it is reused by the next token.
	scratch []byte
	// maxToken caps a string or name; longer ones are cut (the rest is
	// read and dropped).
	maxToken int
}

// maxTokenDefault is the longest string or name kept: none that the
// reader uses comes near it.
const maxTokenDefault = 64 << 10

func newSliceLexer(b []byte) *lexer { return &lexer{buf: b, maxToken: maxTokenDefault} }

// fill reads more into the window; false at the end.
func (l *lexer) fill() bool {
	if l.r == nil || l.err != nil {
		return false
	}
	for tries := 0; tries < 100; tries++ {
		n, err := l.r.Read(l.win[:cap(l.win)])
		l.buf, l.pos = l.win[:n], 0
		if err != nil {
			l.err = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
	l.err = io.ErrNoProgress
	return false
}

func (l *lexer) next() (byte, bool) {
	if l.pos >= len(l.buf) && !l.fill() {
		return 0, false
	}
	c := l.buf[l.pos]
	l.pos++
	return c, true
}

func (l *lexer) peek() (byte, bool) {
	if l.pos >= len(l.buf) && !l.fill() {
		return 0, false
	}
	return l.buf[l.pos], true
}

// unread steps back over the byte next returned last.
func (l *lexer) unread() { l.pos-- }

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isRegular(c byte) bool { return !isSpace(c) && !isDelim(c) }

// skipSpace skips white space and comments, scanning the window
// directly: a stream of nothing but white space (a bomb's filler) must
// cost as little as reading it.
func (l *lexer) skipSpace() {
	comment := false
	for {
		for l.pos < len(l.buf) {
			c := l.buf[l.pos]
			switch {
			case comment:
				comment = c != '\n' && c != '\r'
			case c == '%':
				comment = true
			case !isSpace(c):
				return
			}
			l.pos++
		}
		if !l.fill() {
			return
		}
	}
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tReal
	tName
	tString
	tKeyword // true, false, null, obj, R, operators
	tArrayOpen
	tArrayClose
	tDictOpen
	tDictClose
	tBraceOpen
	tBraceClose
)

// token is the token read last; its bytes are in l.scratch.
type token struct {
	kind tokKind
	i    int64
	f    float64
}

// token reads the next token.
func (l *lexer) token() token {
	l.skipSpace()
	c, ok := l.next()
	if !ok {
		return token{kind: tEOF}
	}
	l.scratch = l.scratch[:0]
	switch c {
	case '/':
		l.readRegular()
		l.decodeNameEscapes()
		return token{kind: tName}
	case '(':
		l.readLiteral()
		return token{kind: tString}
	case '<':
		if c2, ok := l.peek(); ok && c2 == '<' {
			l.pos++
			return token{kind: tDictOpen}
		}
		l.readHex()
		return token{kind: tString}
	case '>':
		if c2, ok := l.peek(); ok && c2 == '>' {
			l.pos++
			return token{kind: tDictClose}
		}
		return l.token() // a stray '>'
	case '[':
		return token{kind: tArrayOpen}
	case ']':
		return token{kind: tArrayClose}
	case '{':
		return token{kind: tBraceOpen}
	case '}':
		return token{kind: tBraceClose}
	case ')':
		return l.token() // a stray ')'
	}
	l.scratch = append(l.scratch, c)
	l.readRegular()
	if c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9' {
		if t, ok := parseNumber(l.scratch); ok {
			return t
		}
	}
	return token{kind: tKeyword}
}

func (l *lexer) readRegular() {
	for {
		c, ok := l.next()
		if !ok {
			return
		}
		if !isRegular(c) {
			l.unread()
			return
		}
		if len(l.scratch) < l.maxToken {
			l.scratch = append(l.scratch, c)
		}
	}
}

func (l *lexer) decodeNameEscapes() {
	b := l.scratch
	j := 0
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if h, ok := unhex(b[i+1]); ok {
				if lo, ok := unhex(b[i+2]); ok {
					b[j] = h<<4 | lo
					j++
					i += 2
					continue
				}
			}
		}
		b[j] = b[i]
		j++
	}
	l.scratch = b[:j]
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *lexer) put(c byte) {
	if len(l.scratch) < l.maxToken {
		l.scratch = append(l.scratch, c)
	}
}

// readLiteral reads a literal string after its '('.
func (l *lexer) readLiteral() {
	depth := 1
	for {
		c, ok := l.next()
		if !ok {
			return
		}
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return
			}
		case '\\':
			c, ok = l.next()
			if !ok {
				return
			}
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if c2, ok := l.peek(); ok && c2 == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if c >= '0' && c <= '7' {
					v := int(c - '0')
					for k := 0; k < 2; k++ {
						c2, ok := l.peek()
						if !ok || c2 < '0' || c2 > '7' {
							break
						}
						l.pos++
						v = v*8 + int(c2-'0')
					}
					c = byte(v)
				}
			}
		}
		l.put(c)
	}
}

// readHex reads a hex string after its '<'.
func (l *lexer) readHex() {
	var hi byte
	half := false
	for {
		c, ok := l.next()
		if !ok || c == '>' {
			break
		}
		v, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			l.put(hi<<4 | v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		l.put(hi << 4)
	}
}

func parseNumber(b []byte) (token, bool) {
	isReal := false
	for _, c := range b {
		switch {
		case c == '.':
			isReal = true
		case c == '+' || c == '-' || c >= '0' && c <= '9':
		default:
			return token{}, false
		}
	}
	if !isReal {
		if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return token{kind: tInt, i: i}, true
		}
	}
	// Reals, and the forms producers write that ParseFloat refuses: "--5",
	// "5-", "+.5", a second sign. Read the sign, then digits and one point.
	neg, i := false, 0
	for i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = neg != (b[i] == '-')
		i++
	}
	var v, scale float64 = 0, 0
	digits := false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
			if scale == 0 {
				v = v*10 + float64(c-'0')
			} else {
				v += float64(c-'0') * scale
				scale /= 10
			}
		case c == '.' && scale == 0:
			scale = 0.1
		default:
			i = len(b)
		}
	}
	if !digits {
		return token{kind: tReal}, true
	}
	if neg {
		v = -v
	}
	return token{kind: tReal, f: v}, true
}
