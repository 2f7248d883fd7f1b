package pdf

import (
	"io"
	"math"
)

// operand is an operand of a content stream operator.
type operand struct {
	kind tokKind // tInt, tReal, tName, tString, tArrayOpen (an array: elems[from:to])
	f    float64
	s    []byte
	from int
	to   int
}

type gstate struct {
	ctm                  matrix
	font                 *font
	size                 float64
	tc, tw, th, tl, rise float64
}

// interp runs content streams, sending the glyphs it shows to a page.
type interp struct {
	d     *Document
	page  *pageBuilder
	gs    gstate
	stack []gstate
	tm    matrix
	tlm   matrix
	ops   []operand
	elems []operand
	arena []byte
	// forms holds the form XObjects being run, against cycles.
	forms []*Stream
	// check is the token count at which the budget and the context are
	// checked next.
	check int64
	show  int
	// Images counts the images drawn.
	images int
}

func (in *interp) num(i int) float64 {
	if i < len(in.ops) {
		o := in.ops[i]
		if o.kind == tInt || o.kind == tReal {
			return o.f
		}
	}
	return 0
}

// The costs, in tokens of the budget, of what a content stream does
// besides reading tokens: a glyph shown, and a form run, so that
// neither strings of millions of glyphs nor forms that draw each other
// twice, forty levels deep, run unbounded.
const (
	glyphTokens = 1
	formTokens  = 64
)

// budget checks the context and the token budget; the run loop calls it
// every 4096 tokens.
func (in *interp) budget() error {
	d := in.d
	in.check = d.tokens + 4096
	if err := d.ctx.Err(); err != nil {
		return err
	}
	if d.tokens > d.lim.MaxTokens {
		return &LimitError{Limit: "tokens", Max: d.lim.MaxTokens}
	}
	return nil
}

// maxArena caps the bytes of strings and names waiting for their
// operator: a real TJ array holds a line; a megabyte is garbage.
const maxArena = 1 << 20

// streamLexer returns a lexer reading r through the window of a level
// of forms: windows are kept, for the next run at their level and the
// next page.
func (in *interp) streamLexer(r io.Reader, depth int) *lexer {
	d := in.d
	for len(d.windows) <= depth {
		d.windows = append(d.windows, nil)
	}
	if d.windows[depth] == nil {
		d.windows[depth] = make([]byte, 32<<10)
	}
	return &lexer{buf: d.windows[depth][:0], r: r, win: d.windows[depth], maxToken: maxTokenDefault}
}

// run interprets one content stream, read by lx, with its resources.
func (in *interp) run(lx *lexer, res Dict, depth int) error {
	d := in.d
	arrayAt := -1
	dictDepth := 0
	for {
		if d.tokens++; d.tokens >= in.check {
			if err := in.budget(); err != nil {
				return err
			}
		}
		t := lx.token()
		if dictDepth > 0 {
			switch t.kind {
			case tDictOpen:
				dictDepth++
			case tDictClose:
				dictDepth--
			case tEOF:
				return lx.readErr()
			}
			continue
		}
		switch t.kind {
		case tEOF:
			return lx.readErr()
		case tInt:
			in.push(operand{kind: tInt, f: float64(t.i)}, arrayAt >= 0)
		case tReal:
			in.push(operand{kind: tReal, f: t.f}, arrayAt >= 0)
		case tName, tString:
			start := len(in.arena)
			in.arena = append(in.arena, lx.scratch...)
			in.push(operand{kind: t.kind, s: in.arena[start:len(in.arena):len(in.arena)]}, arrayAt >= 0)
		case tArrayOpen:
			if arrayAt < 0 {
				arrayAt = len(in.elems)
			}
		case tArrayClose:
			if arrayAt >= 0 {
				in.ops = append(in.ops, operand{kind: tArrayOpen, from: arrayAt, to: len(in.elems)})
				arrayAt = -1
			}
		case tDictOpen:
			dictDepth = 1
			in.ops = append(in.ops, operand{kind: tDictOpen})
		case tKeyword:
			arrayAt = -1
			op := lx.scratch
			if len(op) == 2 && op[0] == 'B' && op[1] == 'I' {
				in.images++
				if err := skipInlineImage(lx); err != nil {
					return err
				}
			} else if err := in.do(op, res, depth); err != nil {
				return err
			}
			in.ops, in.elems, in.arena = in.ops[:0], in.elems[:0], in.arena[:0]
		}
		if len(in.ops) > 64 || len(in.elems) > 1<<16 || len(in.arena) > maxArena {
			// Operands without an operator: garbage; drop them.
			in.ops, in.elems, in.arena = in.ops[:0], in.elems[:0], in.arena[:0]
			arrayAt = -1
		}
	}
}

func (in *interp) push(o operand, inArray bool) {
	if inArray {
		in.elems = append(in.elems, o)
	} else {
		in.ops = append(in.ops, o)
	}
}

// readErr returns the stream's error at its end: nil for a clean end or
// a decoding error (the data ends there), a limit or decryption error
// as it is.
func (l *lexer) readErr() error {
	if l.err != nil && isFatal(l.err) {
		return l.err
	}
	return nil
}

// skipInlineImage skips an inline image's dictionary and data: "ID",
// one white-space byte, then bytes up to "EI" between white space.
func skipInlineImage(lx *lexer) error {
	for {
		t := lx.token()
		if t.kind == tEOF {
			return lx.readErr()
		}
		if t.kind == tKeyword && string(lx.scratch) == "ID" {
			break
		}
	}
	lx.next()
	var p1, p2 byte = 'x', 'x'
	for {
		c, ok := lx.next()
		if !ok {
			return lx.readErr()
		}
		if p1 == 'E' && c == 'I' && isSpace(p2) {
			if n, ok := lx.peek(); !ok || isSpace(n) || isDelim(n) {
				return nil
			}
		}
		p2, p1 = p1, c
	}
}

func (in *interp) do(op []byte, res Dict, depth int) error {
	switch string(op) {
	case "q":
		if len(in.stack) < 256 {
			in.stack = append(in.stack, in.gs)
		}
	case "Q":
		if n := len(in.stack); n > 0 {
			in.gs = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "cm":
		if len(in.ops) == 6 {
			in.gs.ctm = matrix{in.num(0), in.num(1), in.num(2), in.num(3), in.num(4), in.num(5)}.mul(in.gs.ctm)
		}
	case "BT":
		in.tm, in.tlm = identity, identity
	case "Tf":
		if len(in.ops) == 2 && in.ops[0].kind == tName {
			f, err := in.font(res, Name(in.ops[0].s))
			if err != nil {
				return err
			}
			in.gs.font, in.gs.size = f, in.num(1)
		}
	case "Tc":
		in.gs.tc = in.num(0)
	case "Tw":
		in.gs.tw = in.num(0)
	case "Tz":
		in.gs.th = in.num(0) / 100
	case "TL":
		in.gs.tl = in.num(0)
	case "Ts":
		in.gs.rise = in.num(0)
	case "Td":
		in.tlm = translate(in.num(0), in.num(1)).mul(in.tlm)
		in.tm = in.tlm
	case "TD":
		in.gs.tl = -in.num(1)
		in.tlm = translate(in.num(0), in.num(1)).mul(in.tlm)
		in.tm = in.tlm
	case "Tm":
		if len(in.ops) == 6 {
			in.tlm = matrix{in.num(0), in.num(1), in.num(2), in.num(3), in.num(4), in.num(5)}
			in.tm = in.tlm
		}
	case "T*":
		in.nextLine()
	case "Tj":
		if len(in.ops) >= 1 && in.ops[0].kind == tString {
			in.showString(in.ops[0].s)
		}
	case "'":
		in.nextLine()
		if len(in.ops) >= 1 && in.ops[len(in.ops)-1].kind == tString {
			in.showString(in.ops[len(in.ops)-1].s)
		}
	case "\"":
		if len(in.ops) == 3 {
			in.gs.tw, in.gs.tc = in.num(0), in.num(1)
			in.nextLine()
			if in.ops[2].kind == tString {
				in.showString(in.ops[2].s)
			}
		}
	case "TJ":
		if len(in.ops) >= 1 && in.ops[0].kind == tArrayOpen {
			in.show++
			for _, e := range in.elems[in.ops[0].from:in.ops[0].to] {
				switch e.kind {
				case tString:
					in.showBytes(e.s)
				case tInt, tReal:
					in.adjust(e.f)
				}
			}
		}
	case "Do":
		if len(in.ops) >= 1 && in.ops[0].kind == tName {
			return in.xobject(res, Name(in.ops[0].s), depth)
		}
	}
	return nil
}

func (in *interp) nextLine() {
	in.tlm = translate(0, -in.gs.tl).mul(in.tlm)
	in.tm = in.tlm
}

func (in *interp) font(res Dict, name Name) (*font, error) {
	fonts := in.d.resolveDict(res["Font"])
	ref, isRef := fonts[name].(Ref)
	if !isRef {
		return in.d.loadFont(fonts[name]) // a direct font: rare, not cached
	}
	if f, ok := in.d.fonts[ref]; ok {
		return f, nil
	}
	f, err := in.d.loadFont(ref)
	if err != nil {
		return nil, err
	}
	in.d.fonts[ref] = f
	return f, nil
}

func (in *interp) showString(s []byte) {
	in.show++
	in.showBytes(s)
}

// adjust applies a TJ number: a displacement in thousandths of the font
// size, against the writing direction.
func (in *interp) adjust(v float64) {
	f := in.gs.font
	tx := -v / 1000 * in.gs.size
	if (f == nil || !f.hasWidths) && -v >= 200 {
		// Widths unknown: positions are guesses, but a displacement of a
		// fifth of an em between two strings is a word's space.
		in.page.space = true
	}
	if f != nil && f.vertical {
		in.tm = translate(0, tx).mul(in.tm)
		return
	}
	in.tm = translate(tx*in.th(), 0).mul(in.tm)
}

func (in *interp) th() float64 {
	if in.gs.th == 0 {
		return 1
	}
	return in.gs.th
}

func (in *interp) showBytes(s []byte) {
	f := in.gs.font
	if f == nil {
		f = defaultFont
	}
	gs := &in.gs
	th := in.th()
	in.d.tokens += int64(len(s)) * glyphTokens // at most a code a byte
	for len(s) > 0 {
		g := f.next(s)
		s = s[g.n:]
		w, approx := g.width, false
		if !f.hasWidths || w == 0 && g.text != "" && g.text != " " {
			w, approx = 0.5, true
		}
		trm := matrix{gs.size * th, 0, 0, gs.size, 0, gs.rise}.mul(in.tm).mul(gs.ctm)
		var adv float64
		if f.vertical {
			adv = -gs.size + gs.tc
			if g.space {
				adv += gs.tw
			}
		} else {
			adv = w*gs.size + gs.tc
			if g.space {
				adv += gs.tw
			}
			adv *= th
		}
		if g.text != "" {
			in.page.glyph(g.text, trm, w, f.vertical, in.show, approx)
		}
		if f.vertical {
			in.tm = translate(0, adv).mul(in.tm)
		} else {
			in.tm = translate(adv, 0).mul(in.tm)
		}
	}
}

// defaultFont reads codes as Latin-1 when no font was set.
var defaultFont = &font{symbolic: true}

func hypot(a, b float64) float64 { return math.Sqrt(a*a + b*b) }
