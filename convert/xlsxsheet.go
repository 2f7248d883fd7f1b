package convert

import (
	"strconv"
	"strings"
)

// The limits of a sheet in Excel.
const (
	maxSheetRows = 1 << 20
	maxSheetCols = 1 << 14
)

// cellType is a cell's t attribute.
type cellType uint8

const (
	cellNumber cellType = iota
	cellShared
	cellFormulaString
	cellInline
	cellBool
	cellError
	cellISODate
)

func parseCellType(t []byte) cellType {
	switch string(t) {
	case "s":
		return cellShared
	case "str":
		return cellFormulaString
	case "inlineStr":
		return cellInline
	case "b":
		return cellBool
	case "e":
		return cellError
	case "d":
		return cellISODate
	}
	return cellNumber
}

// mergedShown is how many merged ranges a sheet's line lists.
const mergedShown = 20

// readSheet streams a worksheet's cells into g and returns the first of
// its merged ranges and their count.
func (wb *workbook) readSheet(part string, g *grid) (merged []string, total int, err error) {
	sc, c, err := wb.p.scan(part)
	if err != nil {
		return nil, 0, err
	}
	defer c.Close()
	row := 0
	for {
		k, ok, err := sc.inside(0)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			return merged, total, nil
		}
		if k != tokStart {
			continue
		}
		switch {
		case sc.is(nsSML, "row"):
			n := row + 1
			if r, ok := sc.attr(nsNone, "r"); ok {
				n, _ = strconv.Atoi(string(r))
			}
			if n <= row || n > maxSheetRows {
				return nil, 0, formatErr("", "bad row number "+strconv.Itoa(n), nil)
			}
			row = n
			if err = wb.readRow(sc, g, row, &wb.val); err != nil {
				return nil, 0, err
			}
		case sc.is(nsSML, "dimension"):
			if ref := sc.attrString(nsNone, "ref"); isRange(ref) {
				wb.stated = ref
			}
		case sc.is(nsSML, "mergeCell"):
			if total++; len(merged) < mergedShown {
				merged = append(merged, sc.attrString(nsNone, "ref"))
			}
		case sc.is(nsSML, "sheetData"), sc.is(nsSML, "worksheet"), sc.is(nsSML, "mergeCells"):
		default:
			// Everything else (columns, views, conditional formats,
			// drawings) says nothing about the cells' values.
			if err := sc.skip(); err != nil {
				return nil, 0, err
			}
		}
	}
}

// readRow reads the cells of the row whose start tag was just read.
func (wb *workbook) readRow(sc *xmlScanner, g *grid, row int, val *textBuf) error {
	g.startRow(row)
	defer g.endRow()
	d := sc.depth()
	col := 0
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return err
		}
		switch {
		case k != tokStart || !sc.is(nsSML, "c"):
			continue
		}
		next := col + 1
		if ref, ok := sc.attr(nsNone, "r"); ok && len(ref) > 0 {
			if next = refColumn(ref); next == 0 {
				return formatErr("", "bad cell reference "+strconv.Quote(string(ref)), nil)
			}
		}
		col = next
		typ := cellNumber
		if t, ok := sc.attr(nsNone, "t"); ok {
			typ = parseCellType(t)
		}
		style := 0
		if s, ok := sc.attr(nsNone, "s"); ok {
			style = atoiBytes(s)
		}
		val.reset(keepBytes(wb.p.lim))
		if err := readCellValue(sc, typ, val); err != nil {
			return err
		}
		if val.len() == 0 {
			continue
		}
		v, err := wb.cellText(typ, style, val.b, g.keeping())
		if err != nil {
			return err
		}
		g.cell(col, v)
		g.lost(val.lost)
	}
}

// readCellValue reads the value of the cell whose start tag was just
// read: its cached value (v), the cached result of a formula, or its
// inline string.
func readCellValue(sc *xmlScanner, typ cellType, val *textBuf) error {
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return err
		}
		switch {
		case k != tokStart:
		case sc.is(nsSML, "v"):
			if err := sc.eachText(val.write); err != nil {
				return err
			}
		case sc.is(nsSML, "is") && typ == cellInline:
			if err := richText(sc, func(p []byte) error { val.write(p); return nil }); err != nil {
				return err
			}
		default:
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
}

// cellText turns a cell's stored value into its text: a shared string,
// TRUE or FALSE, an ISO 8601 date or time for a number whose format is a
// date or time, or the value as stored. keep says whether the grid keeps
// the value, or only measures it (then val may be returned as a view).
func (wb *workbook) cellText(typ cellType, style int, val []byte, keep bool) (string, error) {
	switch typ {
	case cellShared:
		s, ok := wb.sst.get(atoiBytes(val))
		if !ok {
			return "", formatErr("", "a cell refers to shared string "+strconv.Quote(string(val))+", which does not exist", nil)
		}
		if keep {
			return string(s), nil
		}
		return bytesView(s), nil
	case cellBool:
		if string(val) == "1" {
			return "TRUE", nil
		}
		return "FALSE", nil
	case cellNumber:
		if style < 0 || style >= len(wb.xfs) {
			wb.unformatted = wb.unformatted || wb.stylesCut
			break
		}
		xf := wb.xfs[style]
		if xf.kind == numPlain && xf.num == nil {
			break
		}
		f, err := strconv.ParseFloat(string(val), 64)
		if err != nil {
			break
		}
		if s, rounded, ok := xf.show(f, wb.date1904); ok {
			wb.rounded = wb.rounded || rounded
			return s, nil
		}
	}
	if keep {
		return string(val), nil
	}
	return bytesView(val), nil
}

// roundedNote is the line under a sheet's heading when some of its
// numbers are followed by their stored values.
const roundedNote = "# Numbers are shown as formatted; where the format rounds one, its stored value follows in [brackets]\n"

// isRange reports whether s is an A1 cell or range within a sheet's
// limits ("A1", "A1:M100001"), such as a dimension element states.
func isRange(s string) bool {
	first, last, two := strings.Cut(s, ":")
	cell := func(c string) bool {
		i := 0
		for i < len(c) && 'A' <= c[i] && c[i] <= 'Z' {
			i++
		}
		col, row := refColumn([]byte(c)), atoiBytes([]byte(c[i:]))
		return i > 0 && col > 0 && row > 0 && row <= maxSheetRows
	}
	return cell(first) && (!two || cell(last))
}

// rangeEnd returns the last row of a range checked by isRange; 0 for "".
func rangeEnd(s string) int {
	_, last, two := strings.Cut(s, ":")
	if !two {
		last = s
	}
	return atoiBytes([]byte(strings.TrimLeft(last, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")))
}

// refColumn returns the column of an A1 reference, 0 if it has none or
// is past the last column.
func refColumn(ref []byte) int {
	col := 0
	for _, c := range ref {
		switch {
		case 'A' <= c && c <= 'Z':
			col = col*26 + int(c-'A') + 1
		case 'a' <= c && c <= 'z':
			col = col*26 + int(c-'a') + 1
		default:
			if col > maxSheetCols {
				return 0
			}
			return col
		}
		if col > maxSheetCols {
			return 0
		}
	}
	return col
}

// atoiBytes parses a small non-negative decimal number; -1 if it is not
// one.
func atoiBytes(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
