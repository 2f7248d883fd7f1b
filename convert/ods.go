package convert

import (
	"context"
	"strconv"
	"strings"
)

// ODS returns the converter of OpenDocument spreadsheets (.ods, .ots)
// to CSV, by the same rules as [XLSX]: dates and times come as ISO 8601
// from the file's own values, numbers as stored.
func ODS() Converter { return odsConverter{} }

type odsConverter struct{}

func (odsConverter) Format() Format {
	return odfFormat("ods", []string{"application/vnd.oasis.opendocument.spreadsheet"}, ".ods", ".ots")
}

func (odsConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, sc, c, err := openContent(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r := &odsReader{p: p, sc: sc, styles: newODFStyles(), sink: newSink(lim.MaxChars, "rows"), lim: lim, comments: in.opts.Comments}
	r.inline = newODFInline(r.styles, keepBytes(lim), false)
	p.watch(func() bool { return r.sink.full || r.g != nil && !r.g.storing || r.textShown && r.text.lost > 0 })
	if err := r.walk(); err != nil {
		return nil, err
	}
	desc := sheetsDescription(r.parts, nil)
	if p.stopped() {
		// The sheets are listed in content.xml with their cells.
		desc += "; any sheets after these were not read"
	}
	return &Result{Kind: "ods", As: "CSV", Description: desc, Parts: r.parts, Text: r.sink.text(), Omitted: r.sink.omitted(p.stopped())}, nil
}

type odsReader struct {
	p      *pkg
	sc     *xmlScanner
	styles *odfStyles
	sink   *sink
	lim    Limits
	parts  []Part

	inStyles    bool
	inline      *odfInline
	comments    bool     // cell comments are shown
	notes       []string // the comments of the sheet being read, by cell
	notesLeft   int
	g           *grid
	sheet       Part
	row, col    int
	merged      []string
	mergedTotal int
	val         []byte
	text        textBuf
	rounded     bool // a number of the sheet being read was rounded by its format
	textShown   bool // the cell being read shows its paragraphs, not a value attribute
}

func (r *odsReader) walk() error {
	sc := r.sc
	for {
		k, ok, err := sc.inside(0)
		if !ok {
			return err
		}
		switch k {
		case tokEnd:
			switch {
			case sc.is(nsOffice, "automatic-styles"):
				r.inStyles = false
			case sc.is(nsTable, "table") && r.g != nil:
				r.endSheet()
			}
		case tokStart:
			if err := r.start(); err != nil {
				return err
			}
		}
	}
}

func (r *odsReader) start() error {
	sc := r.sc
	switch {
	case sc.is(nsOffice, "automatic-styles"):
		r.inStyles = true
	case r.inStyles:
		r.styles.style(sc)
	case sc.is(nsTable, "table"):
		if r.g != nil {
			return sc.skip() // a table inside a cell's shape
		}
		if len(r.parts) >= r.lim.MaxSheets {
			return limitErr("", "sheets", int64(r.lim.MaxSheets))
		}
		r.sheet = Part{Kind: "sheet", Name: sc.attrString(nsTable, "name"), Hidden: r.styles.hidden[sc.attrString(nsTable, "style-name")]}
		r.g, r.row, r.merged, r.mergedTotal, r.rounded = newGrid(r.sink), 0, nil, 0, false
		r.notes, r.notesLeft = nil, keepBytes(r.lim)
	case r.g != nil && sc.is(nsTable, "table-row"):
		return r.readRow(odfRepeat(sc, "number-rows-repeated"))
	case sc.is(nsTable, "named-expressions"), sc.is(nsTable, "shapes"), sc.is(nsOffice, "forms"), sc.is(nsTable, "database-ranges"):
		return sc.skip()
	}
	return nil
}

func (r *odsReader) endSheet() {
	rows, cols, r0, c0 := r.g.size()
	r.sheet.Rows, r.sheet.Columns, r.sheet.Merged, r.sheet.Partial = rows, cols, r.mergedTotal, r.p.stopped()
	if len(r.parts) > 0 {
		r.sink.extra("\n")
	}
	r.sink.extra(sheetLine(r.sheet, r0, c0, r.merged, ""))
	if r.rounded {
		r.sink.extra(roundedNote)
	}
	writeCellComments(r.sink, r.notes)
	r.g.render()
	r.parts = append(r.parts, r.sheet)
	r.g = nil
}

// readRow reads a row, repeated n times, whose start tag was just read.
func (r *odsReader) readRow(n int) error {
	sc, g := r.sc, r.g
	first := r.row + 1
	r.row += n
	if first > maxSheetRows {
		return sc.skip()
	}
	g.startRow(first)
	r.col = 0
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if err != nil {
			return err
		}
		switch {
		case !ok:
			g.endRow()
			g.repeat(min(n, maxSheetRows-first+1) - 1)
			return nil
		case k != tokStart:
		case sc.is(nsTable, "table-cell"), sc.is(nsTable, "covered-table-cell"):
			if err := r.readCell(first); err != nil {
				return err
			}
		}
	}
}

// readCell reads a cell whose start tag was just read: its value from
// the value attributes its type names, else its paragraphs.
func (r *odsReader) readCell(row int) error {
	sc, g := r.sc, r.g
	repeat := odfRepeat(sc, "number-columns-repeated")
	col := r.col + 1
	r.col += repeat
	if cs, rs := odfRepeat(sc, "number-columns-spanned"), odfRepeat(sc, "number-rows-spanned"); (cs > 1 || rs > 1) && col <= maxSheetCols {
		if r.mergedTotal++; len(r.merged) < mergedShown {
			r.merged = append(r.merged, cellName(col, row)+":"+cellName(min(col+cs-1, maxSheetCols), min(row+rs-1, maxSheetRows)))
		}
	}
	r.val = r.val[:0]
	fromAttr, number := true, false
	switch string(sc.attrString(nsOffice, "value-type")) {
	case "float", "percentage", "currency":
		r.val = append(r.val, sc.attrString(nsOffice, "value")...)
		number = true
	case "date":
		v := sc.attrString(nsOffice, "date-value")
		r.val = append(r.val, strings.TrimSuffix(v, "T00:00:00")...)
	case "time":
		r.val = append(r.val, isoDuration(sc.attrString(nsOffice, "time-value"))...)
	case "boolean":
		if v := sc.attrString(nsOffice, "boolean-value"); v == "true" {
			r.val = append(r.val, "TRUE"...)
		} else {
			r.val = append(r.val, "FALSE"...)
		}
	default:
		fromAttr = false
	}
	r.text.reset(keepBytes(r.lim))
	r.textShown = !fromAttr || len(r.val) == 0
	d := sc.depth()
	for sc.depth() >= d {
		k, ok, err := sc.inside(0)
		if err != nil {
			return err
		}
		if !ok {
			return errIncomplete
		}
		if k == tokStart && sc.is(nsText, "p") {
			if r.text.len() > 0 {
				r.text.writeString("\n")
			}
			if err := r.inline.text(sc, &r.text); err != nil {
				return err
			}
		} else if k == tokStart && sc.is(nsOffice, "annotation") && r.comments {
			text, err := r.inline.noteBody(sc)
			if err != nil {
				return err
			}
			if r.notesLeft -= len(text); text != "" && r.notesLeft >= 0 {
				r.notes = append(r.notes, cellName(min(col, maxSheetCols), min(row, maxSheetRows))+": "+text)
			}
		} else if k == tokStart && (sc.is(nsOffice, "annotation") || sc.is(nsDraw, "frame")) {
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
	v, lost := r.val, 0
	switch {
	case !fromAttr || len(v) == 0:
		v, lost = r.text.b, r.text.lost
	case number && r.text.len() > 0 && r.text.lost == 0:
		// The number as the spreadsheet shows it, with the stored value
		// when the format rounds it.
		f, err := strconv.ParseFloat(string(r.val), 64)
		if err == nil {
			if !sameDigits(bytesView(r.text.b), f) {
				r.rounded = true
				r.text.writeString(" [" + strconv.FormatFloat(f, 'g', -1, 64) + "]")
			}
			v = r.text.b
		}
	}
	if len(v) == 0 {
		return nil
	}
	for i := 0; i < repeat && col+i <= maxSheetCols; i++ {
		if g.keeping() {
			g.cell(col+i, string(v))
		} else {
			g.cell(col+i, bytesView(v))
		}
		g.lost(lost)
	}
	return nil
}

// isoDuration turns an OpenDocument time value ("PT13H45M00S") into a
// clock time ("13:45:00"); anything else is returned as it is.
func isoDuration(v string) string {
	rest, ok := strings.CutPrefix(v, "PT")
	if !ok {
		return v
	}
	var parts [3]string
	for i, unit := range []string{"H", "M", "S"} {
		n, after, found := strings.Cut(rest, unit)
		if !found {
			return v
		}
		parts[i], rest = n, after
	}
	for i := range parts {
		if j := strings.IndexByte(parts[i], '.'); j >= 0 && i == 2 {
			parts[i] = parts[i][:j]
		}
		if len(parts[i]) < 2 {
			parts[i] = "0" + parts[i]
		}
	}
	return parts[0] + ":" + parts[1] + ":" + parts[2]
}
