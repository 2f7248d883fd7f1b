package pdf

import (
	"math"
	"slices"
	"unicode/utf8"
)

// pageBuilder puts a page's glyphs, in the order the content shows them,
// into lines: a glyph on the baseline of the line being built, in its
// direction, joins it; any other starts a new line. Within a line, runs
// of glyphs are ordered left to right (a row written cell by cell from
// the right still reads from the left); a gap of a fifth of the font
// size or more is a space, of 1.2 times the font size or more a tab (table
// cells, tab stops). Content order is kept across lines: the producers
// of PDFs write a column, a table, a header where it reads, so the order
// of lines is the order a reader follows (sorting lines by position
// would read two columns across).
type pageBuilder struct {
	line    line
	out     func(text []byte)
	buf     []byte
	prevV   float64
	prevDir [2]float64
	prevSz  float64
	started bool
	glyphs  int
	// space asks for a space before the next glyph.
	space bool
}

// A line's text and runs are held until it ends: these bound them. A
// real line, a table's row included, is far below.
const (
	maxLineText  = 64 << 10
	maxLineItems = 4096
)

type line struct {
	active   bool
	dx, dy   float64 // writing direction, a unit vector
	v        float64 // baseline position across the direction
	size     float64
	items    []item
	text     []byte
	lastEnd  float64
	lastShow int
	approx   bool
}

type item struct {
	u0, u1     float64
	start, end int
}

// glyph takes one glyph: its text, its text rendering matrix (the
// origin and the font's size and direction on the page), its advance in
// units of font size, whether it writes top to bottom, which show
// operator drew it, and whether its width was guessed.
func (p *pageBuilder) glyph(text string, trm matrix, w float64, vertical bool, show int, approx bool) {
	p.glyphs++
	dx, dy := trm[0], trm[1]
	size := hypot(trm[2], trm[3])
	if vertical {
		dx, dy = -trm[2], -trm[3]
		size = hypot(trm[0], trm[1])
	}
	n := hypot(dx, dy)
	if n == 0 || size == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return
	}
	dx, dy = dx/n, dy/n
	x, y := trm[4], trm[5]
	u := x*dx + y*dy
	v := y*dx - x*dy
	adv := w * n
	l := &p.line
	same := l.active && math.Abs(l.dx-dx) < 0.05 && math.Abs(l.dy-dy) < 0.05 && math.Abs(v-l.v) < 0.5*math.Max(size, l.size)
	if len(l.text) >= maxLineText || len(l.items) >= maxLineItems {
		same = false // a runaway line goes out in parts
	}
	if !same {
		p.flush()
		l.active, l.dx, l.dy, l.v, l.size = true, dx, dy, v, size
		l.items = append(l.items[:0], item{u0: u, u1: u, start: 0, end: 0})
		l.text = l.text[:0]
		l.lastEnd, l.lastShow, l.approx = u, show, approx
	}
	sz := math.Max(size, 1e-6)
	gap := u - l.lastEnd
	if same && approx && show == l.lastShow {
		gap = 0 // guessed widths: trust the string's own spaces
		if p.space {
			gap = 0.2 * sz
		}
	}
	p.space = false
	it := &l.items[len(l.items)-1]
	switch {
	case !same:
	case gap < -0.5*sz || gap >= 1.2*sz:
		l.items = append(l.items, item{u0: u, u1: u, start: len(l.text), end: len(l.text)})
		it = &l.items[len(l.items)-1]
	case gap >= 0.2*sz:
		if it.end > it.start && l.text[it.end-1] != ' ' {
			l.text = append(l.text, ' ')
			it.end++
		}
	}
	if text == " " || text == "\u00a0" {
		if it.end > it.start && l.text[it.end-1] != ' ' {
			l.text = append(l.text, ' ')
			it.end++
		}
	} else {
		for _, r := range text {
			switch {
			case r < 0x20 || r == 0xFFFD || r == 0xFEFF:
				continue
			case r >= 0xFB00 && r <= 0xFB06:
				// Ligatures as their letters, so that words are found.
				l.text = append(l.text, ligatures[r-0xFB00]...)
				continue
			}
			l.text = utf8.AppendRune(l.text, r)
		}
		it.end = len(l.text)
	}
	end := u + adv
	it.u1 = math.Max(it.u1, end)
	l.lastEnd, l.lastShow, l.approx = end, show, approx
	if l.size < size {
		l.size = size
	}
}

// flush ends the line being built: its runs in order, joined by a space
// or, across a wide gap, a tab.
func (p *pageBuilder) flush() {
	l := &p.line
	if !l.active {
		return
	}
	l.active = false
	items := l.items
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.u0 < b.u0:
			return -1
		case a.u0 > b.u0:
			return 1
		}
		return 0
	})
	out := p.buf[:0]
	prevEnd, prevU0 := math.Inf(-1), math.Inf(-1)
	var prev []byte
	for _, it := range items {
		t := trimSpaces(l.text[it.start:it.end])
		if len(t) == 0 {
			continue
		}
		// Text drawn twice over itself (bold faked by overprinting) once.
		if prev != nil && string(prev) == string(t) && math.Abs(it.u0-prevU0) < 0.3*l.size {
			continue
		}
		if len(out) > 0 {
			if it.u0-prevEnd >= 1.2*l.size {
				out = append(out, '\t')
			} else {
				out = append(out, ' ')
			}
		}
		out = append(out, t...)
		prevEnd, prevU0, prev = it.u1, it.u0, t
	}
	p.buf = out
	if len(out) == 0 {
		return
	}
	// A blank line where the text jumps: a paragraph's space, a new
	// column, a header or footer.
	if p.started {
		jump := p.prevV - l.v
		if l.dx != p.prevDir[0] || l.dy != p.prevDir[1] || jump < -0.5*l.size || jump > 1.9*math.Max(l.size, p.prevSz) {
			p.out(nil)
		}
	}
	p.started = true
	p.prevV, p.prevDir, p.prevSz = l.v, [2]float64{l.dx, l.dy}, l.size
	p.out(out)
}

var ligatures = [...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}

func trimSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}
