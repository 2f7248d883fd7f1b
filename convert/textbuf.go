package convert

import (
	"unicode/utf8"
)

// keepBytes is how much of one paragraph, cell or table a reader keeps:
// enough for more characters than the cap shows (a character takes at
// most four bytes), so that what it drops is never shown. What it drops
// is counted, so the omission stays exact, and a document of one
// paragraph of 250 MB costs the cap, not 250 MB.
func keepBytes(lim Limits) int { return 4*lim.MaxChars + 64 }

// textBuf collects the text of a paragraph or a cell up to max bytes and
// counts, in characters, what comes after.
type textBuf struct {
	b    []byte
	lost int
	max  int
}

func (t *textBuf) reset(max int) {
	t.b, t.lost, t.max = t.b[:0], 0, max
}

func (t *textBuf) write(p []byte) {
	if t.lost > 0 || len(t.b)+len(p) > t.max {
		room := max(t.max-len(t.b), 0)
		if t.lost > 0 {
			room = 0
		}
		for room > 0 && room < len(p) && !utf8.RuneStart(p[room]) {
			room--
		}
		room = min(room, len(p))
		t.b = append(t.b, p[:room]...)
		t.lost += utf8.RuneCount(p[room:])
		return
	}
	t.b = append(t.b, p...)
}

func (t *textBuf) writeString(s string) {
	if t.lost == 0 && len(t.b)+len(s) <= t.max {
		t.b = append(t.b, s...)
		return
	}
	t.write([]byte(s))
}

func (t *textBuf) len() int { return len(t.b) }

// tableRows collects a table's rows while they may still be shown and
// only measures the others: their number, the characters of their cells
// as a Markdown table writes them, and the widest row, which the kept
// rows are padded to. What it keeps is counted in characters as the
// table writes them ("| a |" for a cell of one), not in bytes of text, so
// that a table of a million one-letter cells stops keeping rows once
// they are more than the cap shows, not after a million of them.
type tableRows struct {
	rows      [][]string
	max, kept int // characters
	bytes     int // of the text kept
	width     int
	measuring bool
	moreRows  int
	moreChars int
	lostChars int // characters the cells' readers left out
	cells     int // cells of the row being built
}

// newTableRows returns a table keeping what keep bytes of text (see
// keepBytes) can show: keep/4 characters, more than the cap, as a
// character takes at most four bytes.
func newTableRows(keep int) *tableRows { return &tableRows{max: keep / 4} }

// startRow starts a row.
func (t *tableRows) startRow() {
	t.cells = 0
	if !t.measuring {
		t.rows = append(t.rows, nil)
	}
}

// cell adds a cell to the row started last, with the characters its
// reader left out.
func (t *tableRows) cell(text string, lost int) {
	t.lostChars += lost
	if t.cells >= maxSheetCols {
		t.lostChars += tableCellLen(text)
		return
	}
	t.cells++
	t.width = max(t.width, t.cells)
	if !t.measuring && len(t.rows) == 0 {
		t.rows = append(t.rows, nil) // a cell before any row: HTML allows it
	}
	n := tableCellLen(text) + 3 // " text |"
	if t.cells == 1 {
		n += 2 // the row's "|" and line end
	}
	// The first row is kept up to as many bytes, even past the
	// characters (a cell of a megabyte): the text then shows its start,
	// cut inside, rather than nothing.
	first := len(t.rows) == 1 && t.bytes+len(text) <= 4*t.max
	if !t.measuring && (t.kept+n <= t.max || first) {
		t.kept += n
		t.bytes += len(text)
		r := &t.rows[len(t.rows)-1]
		*r = append(*r, text)
		return
	}
	if !t.measuring {
		// This row no longer fits: it and every later one are measured.
		t.measuring = true
		last := t.rows[len(t.rows)-1]
		t.rows = t.rows[:len(t.rows)-1]
		for _, c := range last {
			t.moreChars += tableCellLen(c)
		}
	}
	t.moreChars += tableCellLen(text)
}

// endRow ends the row started last.
func (t *tableRows) endRow() {
	if t.measuring {
		t.moreRows++
	}
}
