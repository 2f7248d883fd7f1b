package convert

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// XLS returns the converter of Excel 97–2003 workbooks (.xls, BIFF8 in
// a Compound File) to CSV, by the same rules as [XLSX]: every sheet in
// workbook order under a line naming it, its size and used range;
// shared strings, numbers as their formats show them, dates as ISO 8601,
// formula results, booleans and errors; merged ranges listed; hidden
// sheets marked. Workbooks of Excel 95 and earlier (BIFF5 and before)
// and encrypted ones are refused with a [*FormatError] that says
// LibreOffice reads them (see [LibreOffice]).
func XLS() Converter { return xlsConverter{} }

type xlsConverter struct{}

func (xlsConverter) Format() Format {
	return Format{
		Kind:       "xls",
		MediaTypes: []string{"application/vnd.ms-excel", "application/msexcel", "application/x-msexcel", "application/x-excel", "application/xls"},
		Extensions: []string{".xls", ".xlt"},
		Sniff:      func(in *Input, lim Limits) bool { return cfbHas(in, lim, "Workbook") || cfbHas(in, lim, "Book") },
	}
}

// cfbHas reports whether the input is a Compound File whose root holds
// the named stream.
func cfbHas(in *Input, lim Limits, name string) bool {
	c, err := in.cfb(lim)
	return err == nil && c.child(0, name) != nil
}

// cfb parses the input's Compound File once, for every converter that
// sniffs or reads it.
func (in *Input) cfb(lim Limits) (*cfb, error) {
	if !in.cfbSet {
		in.cfbSet = true
		in.cf, in.cfErr = openCFB(in.Data, lim)
	}
	return in.cf, in.cfErr
}

// BIFF record types the converter reads.
const (
	biffBOF         = 0x0809
	biffEOF         = 0x000A
	biffBoundSheet  = 0x0085
	biffSST         = 0x00FC
	biffContinue    = 0x003C
	biffFormat      = 0x041E
	biffXF          = 0x00E0
	biffDateMode    = 0x0022
	biffFilePass    = 0x002F
	biffLabelSST    = 0x00FD
	biffLabel       = 0x0204
	biffNumber      = 0x0203
	biffRK          = 0x027E
	biffMulRK       = 0x00BD
	biffFormula     = 0x0006
	biffString      = 0x0207
	biffBoolErr     = 0x0205
	biffMergedCells = 0x00E5
)

// biffRecord is a record with the CONTINUE records that follow it.
type biffRecord struct {
	typ  uint16
	data []byte
	// conts are the offsets in data where each CONTINUE began: a string
	// that crosses one starts again with its flags byte there.
	conts []int
}

// biffReader reads the records of a workbook stream.
type biffReader struct {
	b   []byte
	pos int
	buf []byte
}

// next returns the next record, joined with its CONTINUE records; ok is
// false at the end of the stream.
func (r *biffReader) next() (rec biffRecord, ok bool, err error) {
	if r.pos+4 > len(r.b) {
		return rec, false, nil
	}
	rec.typ = binary.LittleEndian.Uint16(r.b[r.pos:])
	n := int(binary.LittleEndian.Uint16(r.b[r.pos+2:]))
	if r.pos+4+n > len(r.b) {
		return rec, false, formatErr("", "truncated BIFF record", nil)
	}
	rec.data = r.b[r.pos+4 : r.pos+4+n]
	r.pos += 4 + n
	if rec.typ != biffSST && rec.typ != biffString && rec.typ != biffLabel {
		return rec, true, nil
	}
	// Join CONTINUE records into one buffer, measured first so that it
	// is made once: a shared string table of thousands of records grown
	// by appending would leave its old copies as garbage, twice its size.
	size, conts := n, 0
	for p := r.pos; p+4 <= len(r.b) && binary.LittleEndian.Uint16(r.b[p:]) == biffContinue; conts++ {
		m := int(binary.LittleEndian.Uint16(r.b[p+2:]))
		if p+4+m > len(r.b) {
			return rec, false, formatErr("", "truncated BIFF record", nil)
		}
		size += m
		p += 4 + m
	}
	if conts == 0 {
		return rec, true, nil
	}
	if cap(r.buf) < size {
		r.buf = make([]byte, 0, size)
	}
	r.buf = append(r.buf[:0], rec.data...)
	rec.conts = make([]int, 0, conts)
	for range conts {
		m := int(binary.LittleEndian.Uint16(r.b[r.pos+2:]))
		rec.conts = append(rec.conts, len(r.buf))
		r.buf = append(r.buf, r.b[r.pos+4:r.pos+4+m]...)
		r.pos += 4 + m
	}
	rec.data = r.buf
	return rec, true, nil
}

// xlsBook is what the workbook globals say.
type xlsBook struct {
	sst      *stringTable
	formats  map[int]xfFormat
	xfs      []xfFormat
	date1904 bool
	sheets   []xlsSheet
	rounded  bool
}

type xlsSheet struct {
	name   string
	offset int
	hidden bool
	kind   byte // 0 worksheet, 1 macro sheet, 2 chart
}

func (xlsConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	c, err := in.cfb(lim)
	if err != nil {
		return nil, err
	}
	stream, ok, err := c.stream("Workbook")
	if err != nil {
		return nil, err
	}
	if !ok {
		if c.child(0, "Book") != nil {
			return nil, needsLibreOffice("an Excel 5.0/95 workbook (BIFF5)")
		}
		return nil, formatErr("", "no Workbook stream", nil)
	}
	bk := &xlsBook{formats: map[int]xfFormat{}, sst: newStringTable(lim, uint64(len(stream)))}
	r := &biffReader{b: stream}
	if err := bk.readGlobals(r, lim); err != nil {
		return nil, err
	}
	s := newSink(lim.MaxChars, "rows")
	var parts []Part
	for i, sh := range bk.sheets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i > 0 {
			s.extra("\n")
		}
		part := Part{Kind: "sheet", Name: sh.name, Hidden: sh.hidden}
		if sh.kind == 2 {
			s.extra(sheetHeading(sh.name, sh.hidden) + ": a chart, no cells\n")
			parts = append(parts, part)
			continue
		}
		if sh.offset < 0 || sh.offset >= len(stream) {
			return nil, formatErr("", "sheet "+strconv.Quote(sh.name)+" lies past the end of the workbook", nil)
		}
		g := newGrid(s)
		bk.rounded = false
		merged, total, err := bk.readSheet(&biffReader{b: stream, pos: sh.offset}, g)
		if err != nil {
			return nil, withPart(sh.name, err)
		}
		rows, cols, r0, c0 := g.size()
		part.Rows, part.Columns, part.Merged = rows, cols, total
		s.extra(sheetLine(part, r0, c0, merged, ""))
		if bk.rounded {
			s.extra(roundedNote)
		}
		g.render()
		parts = append(parts, part)
	}
	return &Result{Kind: "xls", As: "CSV", Description: sheetsDescription(parts, nil), Parts: parts, Text: s.text(), Omitted: s.omit}, nil
}

// readGlobals reads the workbook globals up to their EOF: the sheets,
// the shared strings, the number formats and cell formats, the date
// system.
func (bk *xlsBook) readGlobals(r *biffReader, lim Limits) error {
	first := true
	for {
		rec, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			return formatErr("", "the workbook globals have no end", nil)
		}
		d := rec.data
		if first {
			first = false
			if rec.typ != biffBOF || len(d) < 4 {
				return formatErr("", "not a BIFF8 workbook stream", nil)
			}
			if v := binary.LittleEndian.Uint16(d); v != 0x0600 {
				return needsLibreOffice("a workbook of an Excel older than 97 (BIFF version " + strconv.FormatUint(uint64(v), 16) + ")")
			}
			continue
		}
		switch rec.typ {
		case biffEOF:
			return nil
		case biffFilePass:
			return needsLibreOffice("an encrypted workbook (LibreOffice asks for its password)")
		case biffDateMode:
			bk.date1904 = len(d) >= 2 && binary.LittleEndian.Uint16(d) == 1
		case biffBoundSheet:
			if len(d) < 8 {
				return formatErr("", "short sheet record", nil)
			}
			if len(bk.sheets) >= lim.MaxSheets {
				return limitErr("", "sheets", int64(lim.MaxSheets))
			}
			name, _ := biffShortString(d[6:])
			bk.sheets = append(bk.sheets, xlsSheet{name: name, offset: int(binary.LittleEndian.Uint32(d)), hidden: d[4]&3 != 0, kind: d[5]})
		case biffFormat:
			if len(d) >= 2 && len(bk.formats) < maxFormats {
				code, _, _ := biffString16(d[2:], nil, 2)
				bk.formats[int(binary.LittleEndian.Uint16(d))] = compileFormat(code)
			}
		case biffXF:
			if len(d) >= 4 && len(bk.xfs) < maxFormats {
				id := int(binary.LittleEndian.Uint16(d[2:]))
				f, ok := bk.formats[id]
				if !ok {
					f = builtinFormat(id)
				}
				bk.xfs = append(bk.xfs, f)
			}
		case biffSST:
			if err := bk.readSST(rec); err != nil {
				return err
			}
		}
	}
}

// readSST reads the shared string table, which may cross CONTINUE
// records, into the bounded string table.
func (bk *xlsBook) readSST(rec biffRecord) error {
	d := rec.data
	if len(d) < 8 {
		return formatErr("", "short shared string table", nil)
	}
	n := int(binary.LittleEndian.Uint32(d[4:]))
	pos := 8
	conts := rec.conts
	for i := 0; i < n && pos < len(d); i++ {
		// The CONTINUE records before this string are behind for good:
		// dropping them here keeps the table's reading linear in its
		// size, not in its strings times its records.
		for len(conts) > 0 && conts[0] <= pos {
			conts = conts[1:]
		}
		item := bk.sst.start()
		s, next, ok, err := biffRichString(d, pos, conts, item)
		for err == nil && !ok {
			// Read again into the buffer at its full size.
			if item, ok = bk.sst.more(item); !ok {
				return bk.sst.limitErr()
			}
			s, next, ok, err = biffRichString(d, pos, conts, item)
		}
		if err != nil {
			return err
		}
		pos = next
		if err := bk.sst.end(s); err != nil {
			return err
		}
	}
	return nil
}

// biffShortString reads a ShortXLUnicodeString: a count byte, a flags
// byte, the characters.
func biffShortString(d []byte) (string, int) {
	if len(d) < 2 {
		return "", len(d)
	}
	n, high := int(d[0]), d[1]&1 != 0
	return biffChars(d[2:], n, high)
}

// biffString16 reads an XLUnicodeString (a 16-bit count, a flags byte,
// the characters) at d, one not crossing a CONTINUE. It returns the
// string and its length in bytes.
func biffString16(d []byte, _ []int, _ int) (string, int, error) {
	if len(d) < 3 {
		return "", len(d), formatErr("", "short string", nil)
	}
	n, flags := int(binary.LittleEndian.Uint16(d)), d[2]
	s, used := biffChars(d[3:], n, flags&1 != 0)
	return s, 3 + used, nil
}

// biffChars reads n characters, 16-bit when high, else 8-bit (Latin-1,
// the compressed form BIFF8 writes when every character fits).
func biffChars(d []byte, n int, high bool) (string, int) {
	if high {
		n = min(n, len(d)/2)
		return utf16LE(d[:2*n]), 2 * n
	}
	n = min(n, len(d))
	r := make([]rune, n)
	for i, b := range d[:n] {
		r[i] = rune(b)
	}
	return string(r), n
}

// biffRichString reads an XLUnicodeRichExtendedString at pos of the SST
// record d, whose CONTINUE records began at conts: when its characters
// cross one, the continuation starts with a new flags byte saying
// whether they are 8- or 16-bit. The UTF-8 text is appended to dst and
// the position after the string returned; ok is false when the text
// would outgrow dst's capacity.
func biffRichString(d []byte, pos int, conts []int, dst []byte) (_ []byte, next int, ok bool, err error) {
	short := errShortString
	if pos+3 > len(d) {
		return dst, len(d), false, short
	}
	n := int(binary.LittleEndian.Uint16(d[pos:]))
	flags := d[pos+2]
	pos += 3
	runs, ext := 0, 0
	if flags&8 != 0 {
		if pos+2 > len(d) {
			return dst, len(d), false, short
		}
		runs = int(binary.LittleEndian.Uint16(d[pos:]))
		pos += 2
	}
	if flags&4 != 0 {
		if pos+4 > len(d) {
			return dst, len(d), false, short
		}
		ext = int(binary.LittleEndian.Uint32(d[pos:]))
		pos += 4
	}
	high := flags&1 != 0
	ci := 0
	for ci < len(conts) && conts[ci] <= pos {
		ci++
	}
	for i := 0; i < n; i++ {
		if ci < len(conts) && pos == conts[ci] {
			// The characters continue in the next record, after its own
			// flags byte.
			if pos >= len(d) {
				return dst, len(d), false, short
			}
			high = d[pos]&1 != 0
			pos++
			ci++
		}
		var r rune
		if high {
			if pos+2 > len(d) {
				return dst, len(d), false, short
			}
			u := binary.LittleEndian.Uint16(d[pos:])
			pos += 2
			r = rune(u)
			if utf16.IsSurrogate(r) && i+1 < n && pos+2 <= len(d) && !(ci < len(conts) && pos == conts[ci]) {
				if r2 := utf16.DecodeRune(r, rune(binary.LittleEndian.Uint16(d[pos:]))); r2 != 0xFFFD {
					r = r2
					pos += 2
					i++
				}
			}
		} else {
			if pos >= len(d) {
				return dst, len(d), false, short
			}
			r = rune(d[pos])
			pos++
		}
		if len(dst)+utf8.RuneLen(r) > cap(dst) {
			return dst, pos, false, nil
		}
		dst = utf8.AppendRune(dst, r)
	}
	pos += 4*runs + ext
	return dst, min(pos, len(d)), true, nil
}

// errShortString is the error of a shared string cut short, made once:
// a table holds millions of strings.
var errShortString = formatErr("", "truncated shared string", nil)

// xlsErrors are the texts of BIFF error codes.
var xlsErrors = map[byte]string{0x00: "#NULL!", 0x07: "#DIV/0!", 0x0F: "#VALUE!", 0x17: "#REF!", 0x1D: "#NAME?", 0x24: "#NUM!", 0x2A: "#N/A"}

// readSheet reads a worksheet substream from its BOF to its EOF into g.
func (bk *xlsBook) readSheet(r *biffReader, g *grid) (merged []string, total int, err error) {
	row := -1
	pendingString := -1 // the column of a formula whose string result follows
	var text []byte
	cell := func(rw, col int, v string) error {
		if col >= maxSheetCols || rw >= maxSheetRows {
			return nil
		}
		if rw != row {
			if rw < row {
				return formatErr("", "cells out of row order", nil)
			}
			g.endRow()
			g.startRow(rw + 1)
			row = rw
		}
		g.cell(col+1, v)
		return nil
	}
	defer g.endRow()
	for depth := 0; ; {
		rec, ok, err := r.next()
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			return nil, 0, formatErr("", "the sheet has no end", nil)
		}
		d := rec.data
		switch rec.typ {
		case biffBOF:
			depth++
			continue
		case biffEOF:
			if depth--; depth <= 0 {
				return merged, total, nil
			}
			continue
		}
		if depth > 1 {
			continue // an embedded chart's substream
		}
		if pendingString >= 0 && rec.typ != biffString {
			pendingString = -1
		}
		switch rec.typ {
		case biffLabelSST:
			if len(d) < 10 {
				continue
			}
			s, ok := bk.sst.get(int(binary.LittleEndian.Uint32(d[6:])))
			if !ok {
				return nil, 0, formatErr("", "a cell refers to a shared string that does not exist", nil)
			}
			err = cell(int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), keptString(g, s))
		case biffLabel:
			if len(d) < 9 {
				continue
			}
			s, _, _ := biffString16(d[6:], nil, 0)
			err = cell(int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), s)
		case biffNumber:
			if len(d) < 14 {
				continue
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(d[6:]))
			err = cell(int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), bk.number(v, int(binary.LittleEndian.Uint16(d[4:]))))
		case biffRK:
			if len(d) < 10 {
				continue
			}
			err = cell(int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), bk.number(rkValue(binary.LittleEndian.Uint32(d[6:])), int(binary.LittleEndian.Uint16(d[4:]))))
		case biffMulRK:
			if len(d) < 6 {
				continue
			}
			rw, col := int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:]))
			for p := 4; p+6 <= len(d)-2 && err == nil; p += 6 {
				err = cell(rw, col, bk.number(rkValue(binary.LittleEndian.Uint32(d[p+2:])), int(binary.LittleEndian.Uint16(d[p:]))))
				col++
			}
		case biffFormula:
			if len(d) < 20 {
				continue
			}
			rw, col, xf := int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), int(binary.LittleEndian.Uint16(d[4:]))
			res := d[6:14]
			if res[6] != 0xFF || res[7] != 0xFF {
				err = cell(rw, col, bk.number(math.Float64frombits(binary.LittleEndian.Uint64(res)), xf))
				break
			}
			switch res[0] {
			case 0: // a string, in the STRING record that follows
				if err = cell(rw, col, ""); err == nil {
					pendingString = col
				}
			case 1:
				err = cell(rw, col, map[bool]string{true: "TRUE", false: "FALSE"}[res[2] != 0])
			case 2:
				err = cell(rw, col, xlsErrors[res[2]])
			}
		case biffString:
			if pendingString >= 0 && len(d) >= 3 {
				n, flags := int(binary.LittleEndian.Uint16(d)), d[2]
				text, err = biffRichStringAt(d, n, flags, rec.conts, text[:0])
				if err == nil {
					err = cell(row, pendingString, keptString(g, text))
				}
				pendingString = -1
			}
		case biffBoolErr:
			if len(d) < 8 {
				continue
			}
			v := ""
			if d[7] == 0 {
				v = map[bool]string{true: "TRUE", false: "FALSE"}[d[6] != 0]
			} else {
				v = xlsErrors[d[6]]
			}
			err = cell(int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), v)
		case biffMergedCells:
			if len(d) < 2 {
				continue
			}
			n := int(binary.LittleEndian.Uint16(d))
			for i := 0; i < n && 2+8*i+8 <= len(d); i++ {
				p := d[2+8*i:]
				r0, r1 := int(binary.LittleEndian.Uint16(p)), int(binary.LittleEndian.Uint16(p[2:]))
				c0, c1 := int(binary.LittleEndian.Uint16(p[4:])), int(binary.LittleEndian.Uint16(p[6:]))
				if total++; len(merged) < mergedShown {
					merged = append(merged, cellName(min(c0, maxSheetCols-1)+1, min(r0, maxSheetRows-1)+1)+":"+cellName(min(c1, maxSheetCols-1)+1, min(r1, maxSheetRows-1)+1))
				}
			}
		}
		if err != nil {
			return nil, 0, err
		}
	}
}

// biffRichStringAt reads the characters of a string whose count and
// flags were read (a STRING record's), from d[3:].
func biffRichStringAt(d []byte, n int, flags byte, conts []int, dst []byte) ([]byte, error) {
	// The header the SST reader expects, without runs or extensions,
	// which STRING records do not have; the offsets stay the same.
	buf := append([]byte{byte(n), byte(n >> 8), flags &^ 0x0C}, d[3:]...)
	if cap(dst) < 4*n {
		dst = make([]byte, 0, 4*n)
	}
	out, _, _, err := biffRichString(buf, 0, conts, dst)
	return out, err
}

// keptString returns b as a string the grid may keep, or a view of it
// when the grid only measures the row.
func keptString(g *grid, b []byte) string {
	if g.keeping() {
		return string(b)
	}
	return bytesView(b)
}

// number writes a cell's number by its cell format.
func (bk *xlsBook) number(v float64, xf int) string {
	if xf >= 0 && xf < len(bk.xfs) {
		if s, rounded, ok := bk.xfs[xf].show(v, bk.date1904); ok {
			bk.rounded = bk.rounded || rounded
			return s
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// rkValue decodes an RK number: a 30-bit integer or the high bits of a
// double, optionally divided by 100.
func rkValue(rk uint32) float64 {
	var v float64
	if rk&2 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&^3) << 32)
	}
	if rk&1 != 0 {
		v /= 100
	}
	return v
}
