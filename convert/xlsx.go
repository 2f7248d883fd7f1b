package convert

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// XLSX returns the converter of Excel workbooks (.xlsx, .xlsm and their
// templates). Each sheet becomes CSV under a line naming it, its size and
// its used range; see the package documentation for the rules.
func XLSX() Converter { return xlsxConverter{} }

type xlsxConverter struct{}

func (xlsxConverter) Format() Format {
	return Format{
		Kind: "xlsx",
		MediaTypes: []string{
			"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
			"application/vnd.openxmlformats-officedocument.spreadsheetml.template",
			"application/vnd.ms-excel.sheet.macroenabled.12",
			"application/vnd.ms-excel.template.macroenabled.12",
		},
		Extensions: []string{".xlsx", ".xlsm", ".xltx", ".xltm"},
		Sniff:      func(in *Input, lim Limits) bool { return zipHas(in, lim, "xl/workbook.xml") },
	}
}

// zipHas reports whether the input is a zip archive holding the part.
func zipHas(in *Input, lim Limits, part string) bool {
	if !isZip(in.Data) {
		return false
	}
	_, index, err := in.zip(lim)
	if err != nil {
		return false
	}
	_, ok := index[partKey(part)]
	return ok
}

// workbook is what the sheets are read with.
type workbook struct {
	p        *pkg
	sst      *stringTable
	xfs      []xfFormat
	date1904 bool
	sheets   []wbSheet
	// stylesCut says that the styles were read only in part
	// ([Limits].MaxStyles).
	stylesCut bool

	// Of the sheet being read: a number was rounded by its format, a
	// number's format was not read (it is shown as stored), the range
	// its dimension element states ("A1:M100001", checked to be one),
	// and the value of the cell being read.
	rounded, unformatted bool
	stated               string
	val                  textBuf
}

type wbSheet struct {
	name, part string
	hidden     bool
	chart      bool
}

func (xlsxConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, main, rels, err := openMain(ctx, in, lim, "xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	wb := &workbook{p: p}
	if err := wb.load(main, rels); err != nil {
		return nil, err
	}
	s := newSink(lim.MaxChars, "rows")
	var g *grid
	p.watch(func() bool { return s.full || g != nil && !g.storing || wb.val.lost > 0 })
	var parts []Part
	stated := map[int]string{} // the ranges stated by sheets read in part
	for i, sh := range wb.sheets {
		if i > 0 {
			s.extra("\n")
		}
		part := Part{Kind: "sheet", Name: sh.name, Hidden: sh.hidden, Partial: p.stopped()}
		if part.Partial {
			// Reading stopped in a sheet before: this one is not read.
			s.extra(sheetHeading(sh.name, sh.hidden) + ": " + notRead + "\n")
			parts = append(parts, part)
			continue
		}
		ex, err := wb.readExtras(sh.part, in.opts.Comments)
		if err != nil {
			return nil, withPart(sh.name, err)
		}
		if sh.chart {
			s.extra(sheetHeading(sh.name, sh.hidden) + ": a chart, no cells\n")
			writeCharts(s, ex.charts)
			parts = append(parts, part)
			continue
		}
		g = newGrid(s)
		wb.rounded, wb.unformatted, wb.stated = false, false, ""
		merged, total, err := wb.readSheet(sh.part, g)
		if err != nil {
			return nil, withPart(sh.name, err)
		}
		rows, cols, r0, c0 := g.size()
		part.Rows, part.Columns, part.Merged, part.Partial = rows, cols, total, p.stopped()
		if !part.Partial || rangeEnd(wb.stated) <= r0+rows-1 {
			// A range is worth giving only past what was read: some
			// writers state "A1" whatever the sheet holds.
			wb.stated = ""
		}
		if wb.stated != "" {
			// How far the sheet goes is known only from what it says.
			stated[len(parts)] = wb.stated
		}
		s.extra(sheetLine(part, r0, c0, merged, wb.stated))
		if wb.rounded {
			s.extra(roundedNote)
		}
		if wb.unformatted {
			s.extra(unformattedNote(lim.MaxStyles))
		}
		writeCellComments(s, ex.comments)
		g.render()
		writeCharts(s, ex.charts)
		parts = append(parts, part)
	}
	return &Result{Kind: "xlsx", As: "CSV", Description: sheetsDescription(parts, stated), Parts: parts, Text: s.text(), Omitted: s.omitted(p.stopped())}, nil
}

// notRead is what a sheet's line says when reading stopped before it.
const notRead = "not read (reading stopped past the cap)"

// unformattedNote is the line under a sheet's heading when some of its
// numbers have a format past the styles read.
func unformattedNote(maxStyles int) string {
	return "# Some numbers are shown as stored, not as formatted: the workbook has more than " + thousands(maxStyles) + " formats, and the rest were not read\n"
}

func sheetHeading(name string, hidden bool) string {
	h := "# Sheet " + strconv.Quote(name)
	if hidden {
		h += " (hidden)"
	}
	return h
}

// sheetLine is the line above a sheet's CSV: its name, size and used
// range (from its first cell, r0 and c0), and its merged ranges, whose
// value is in their first cell. A sheet reading stopped in is said to be
// at least the size read, and the range it states, if any, is given.
func sheetLine(p Part, r0, c0 int, merged []string, stated string) string {
	rows, cols, total := p.Rows, p.Columns, p.Merged
	var b strings.Builder
	b.WriteString(sheetHeading(p.Name, p.Hidden))
	switch {
	case rows == 0 && p.Partial:
		b.WriteString(": " + notRead + "\n")
		return b.String()
	case rows == 0:
		b.WriteString(": empty\n")
		return b.String()
	case p.Partial:
		fmt.Fprintf(&b, ": at least %s × %s, cells %s:%s and on (reading stopped past the cap", plural(rows, "row"), plural(cols, "column"),
			cellName(c0, r0), cellName(c0+cols-1, r0+rows-1))
		if stated != "" {
			b.WriteString("; the sheet states its range as " + stated)
		}
		b.WriteString(")\n")
	default:
		fmt.Fprintf(&b, ": %s × %s, cells %s:%s\n", plural(rows, "row"), plural(cols, "column"),
			cellName(c0, r0), cellName(c0+cols-1, r0+rows-1))
	}
	if len(merged) > 0 {
		b.WriteString("# Merged cells (each value is in the range's first cell): ")
		b.WriteString(strings.Join(merged, ", "))
		if total > len(merged) {
			fmt.Fprintf(&b, " and %s more", thousands(total-len(merged)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// writeCellComments writes a sheet's cell comments under its heading, one
// line each: "# Comment B3: Bo: Met in March".
func writeCellComments(s *sink, notes []string) {
	for _, n := range notes {
		s.extra("# Comment " + strings.ReplaceAll(n, "\n", " ") + "\n")
	}
}

// sheetsDescription describes a workbook or spreadsheet by its sheets,
// with the ranges stated by the sheets read in part, by index.
func sheetsDescription(parts []Part, stated map[int]string) string {
	i := -1
	size := func(p Part) string {
		i++
		s := plural(p.Rows, "row") + " × " + plural(p.Columns, "column")
		switch {
		case p.Partial && p.Rows == 0:
			s = "not read"
		case p.Partial && stated[i] != "":
			s = "at least " + s + ", " + stated[i] + " stated"
		case p.Partial:
			s = "at least " + s
		}
		if p.Hidden {
			s = "hidden, " + s
		}
		return s
	}
	if len(parts) == 1 {
		return "sheet " + strconv.Quote(parts[0].Name) + ", " + size(parts[0])
	}
	const shown = 5
	var b strings.Builder
	b.WriteString(plural(len(parts), "sheet"))
	for i, p := range parts[:min(len(parts), shown)] {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q (%s)", p.Name, size(p))
	}
	if len(parts) > shown {
		fmt.Fprintf(&b, " and %s more", thousands(len(parts)-shown))
	}
	return b.String()
}
