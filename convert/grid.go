package convert

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// grid renders one sheet as CSV through a sink. Sheets arrive row by row
// and cell by cell (sparse, with their column numbers), but their size is
// known only at the end: the used range runs from the first to the last
// non-empty row and column, so leading and trailing empty rows and
// columns are dropped, and every row is padded to the range's width. The
// grid keeps the rows that may still fit the sink's room and only
// measures the others, so its memory is bounded by the cap, not the
// sheet.
type grid struct {
	sink *sink
	room int

	cells  []gridCell
	rows   []gridRow
	cur    gridRow
	inRow  bool
	sorted bool

	firstRow, lastRow int
	minCol, maxCol    int
	storedChars       int
	storing           bool

	// Rows measured but not kept, up to the last non-empty row.
	lostRows, lostChars int
}

type gridCell struct {
	col int
	val string
}

type gridRow struct {
	num        int
	start, end int // cells[start:end]
	chars      int // CSV characters of its cells alone, without commas
	lastCol    int
}

func newGrid(s *sink) *grid {
	return &grid{sink: s, room: s.room(), storing: true}
}

// keeping reports whether the current row is still kept, so that callers
// copy a cell's bytes only when they are.
func (g *grid) keeping() bool { return g.storing }

func (g *grid) startRow(num int) {
	g.cur = gridRow{num: num, start: len(g.cells), end: len(g.cells)}
	g.inRow, g.sorted = true, true
}

// cell adds a non-empty value; an empty one is ignored. The grid keeps
// val only while [grid.keeping]; otherwise callers may pass a view of
// bytes they reuse (see bytesView).
func (g *grid) cell(col int, val string) {
	if val == "" {
		return
	}
	if col <= g.cur.lastCol {
		g.sorted = false
	}
	g.cur.lastCol = max(g.cur.lastCol, col)
	g.cur.chars += csvLen(val)
	g.minCol = minNonZero(g.minCol, col)
	g.maxCol = max(g.maxCol, col)
	if g.storing {
		g.cells = append(g.cells, gridCell{col, val})
		g.cur.end = len(g.cells)
	}
}

// lost counts n characters of the cell just added that its reader left
// out: the row is then too long to keep, and is measured.
func (g *grid) lost(n int) { g.cur.chars += n }

func minNonZero(a, b int) int {
	if a == 0 || b < a {
		return b
	}
	return a
}

// endRow ends the row started last.
func (g *grid) endRow() {
	if !g.inRow {
		return
	}
	g.inRow = false
	r := g.cur
	if r.chars == 0 {
		return
	}
	if g.firstRow == 0 {
		g.firstRow = r.num
	}
	if g.storing {
		if !g.sorted {
			g.sortRow(&r)
		}
		width := g.maxCol - g.minCol + 1
		spanned := r.num - g.firstRow + 1
		if g.storedChars+r.chars+spanned*width > g.room {
			g.storing = false
			g.cells = g.cells[:r.start]
		} else {
			g.storedChars += r.chars
			g.rows = append(g.rows, r)
			g.lastRow = r.num
			return
		}
	}
	// The rows between the last one seen and this one are empty, and
	// left out with it.
	g.lostRows += r.num - max(g.lastRow, g.firstRow-1)
	g.lostChars += r.chars
	g.lastRow = r.num
}

// repeat adds n copies of the row just ended, as the rows after it: an
// OpenDocument row may say it repeats. Copies that are not kept are
// counted in one step, however many they are.
func (g *grid) repeat(n int) {
	r := g.cur
	if r.chars == 0 || n <= 0 {
		return
	}
	kept := len(g.rows) > 0 && g.rows[len(g.rows)-1].num == r.num
	for ; n > 0 && g.storing && kept; n-- {
		g.startRow(g.lastRow + 1)
		for i := r.start; i < r.end; i++ {
			g.cell(g.cells[i].col, g.cells[i].val)
		}
		g.endRow()
	}
	if n > 0 {
		g.lostRows += n
		g.lostChars += n * r.chars
		g.lastRow += n
	}
}

// sortRow orders a row's cells by column, the last of duplicates
// winning, and recounts its characters.
func (g *grid) sortRow(r *gridRow) {
	cs := g.cells[r.start:r.end]
	slices.SortStableFunc(cs, func(a, b gridCell) int { return a.col - b.col })
	out := cs[:0]
	for i, c := range cs {
		if i+1 < len(cs) && cs[i+1].col == c.col {
			continue
		}
		out = append(out, c)
	}
	r.end = r.start + len(out)
	r.chars = 0
	for _, c := range out {
		r.chars += csvLen(c.val)
	}
}

// size returns the used range: its rows and columns and its first cell.
func (g *grid) size() (rows, cols, firstRow, firstCol int) {
	if g.firstRow == 0 {
		return 0, 0, 0, 0
	}
	return g.lastRow - g.firstRow + 1, g.maxCol - g.minCol + 1, g.firstRow, g.minCol
}

// render writes the kept rows as CSV, and counts the others as left out.
func (g *grid) render() {
	rows, cols, _, _ := g.size()
	if rows == 0 {
		return
	}
	var b strings.Builder
	next := g.firstRow
	for _, r := range g.rows {
		g.emptyRows(r.num-next, cols)
		b.Reset()
		col := g.minCol
		for _, c := range g.cells[r.start:r.end] {
			b.WriteString(strings.Repeat(",", c.col-col))
			writeCSV(&b, c.val)
			col = c.col
		}
		b.WriteString(strings.Repeat(",", g.maxCol-col))
		b.WriteByte('\n')
		g.sink.unit(b.String())
		next = r.num + 1
	}
	if g.lostRows > 0 {
		g.sink.skip(g.lostChars+g.lostRows*cols, g.lostRows)
	}
}

// emptyRows writes n empty rows, counting in bulk those that do not fit.
func (g *grid) emptyRows(n, cols int) {
	line := strings.Repeat(",", cols-1) + "\n"
	for ; n > 0 && g.sink.room() >= cols; n-- {
		g.sink.unit(line)
	}
	if n > 0 {
		g.sink.skip(n*cols, n)
	}
}

// csvLen is the length in characters of a field written as CSV, in one
// pass: it is called for every cell of a sheet.
func csvLen(s string) int {
	if s == "" {
		return 0
	}
	n, quotes, special := 0, 0, s[0] == ' ' || s[len(s)-1] == ' '
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c&0xC0 != 0x80 {
			n++
		}
		switch c {
		case '"':
			quotes++
			special = true
		case ',', '\r', '\n':
			special = true
		}
	}
	if special {
		n += 2 + quotes
	}
	return n
}

// csvQuote reports whether a field needs quotes (RFC 4180, and around
// leading or trailing spaces so that they survive).
func csvQuote(s string) bool {
	return s != "" && (strings.ContainsAny(s, ",\"\r\n") || s[0] == ' ' || s[len(s)-1] == ' ')
}

func writeCSV(b *strings.Builder, s string) {
	if !csvQuote(s) {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

// cellName returns the A1 name of a cell.
func cellName(col, row int) string { return colName(col) + strconv.Itoa(row) }

func colName(col int) string {
	var b []byte
	for col > 0 {
		col--
		b = append(b, byte('A'+col%26))
		col /= 26
	}
	slices.Reverse(b)
	return string(b)
}

// bytesView returns b as a string without copying, for a value the callee
// does not keep.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
