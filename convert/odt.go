package convert

import (
	"context"
	"strconv"
	"strings"
)

// ODT returns the converter of OpenDocument text documents (.odt, .ott,
// and the HTML documents (.oth) and master documents (.odm, .otm) that
// LibreOffice writes) to Markdown, by the same rules as [DOCX].
func ODT() Converter { return odtConverter{} }

type odtConverter struct{}

func (odtConverter) Format() Format {
	return odfFormat("odt", []string{
		"application/vnd.oasis.opendocument.text",
		// What LibreOffice Writer/Web saves (an HTML document edited
		// as text), and master documents: the same text in content.xml.
		"application/vnd.oasis.opendocument.text-web",
		"application/vnd.oasis.opendocument.text-master",
	}, ".odt", ".ott", ".oth", ".odm", ".otm")
}

func (odtConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, sc, c, err := openContent(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s := newSink(lim.MaxChars, "paragraphs")
	out := &blocks{sink: s}
	w := newODFFlow(out, newODFStyles(), keepBytes(lim), in.opts.Comments)
	if p.has("styles.xml") {
		if err := w.readStyles(p, "styles.xml"); err != nil {
			return nil, err
		}
	}
	p.watch(func() bool { return s.full || w.dropped() })
	if err := w.walk(sc); err != nil {
		return nil, err
	}
	w.inline.writeNotes(out)
	return &Result{Kind: "odt", As: "Markdown", Description: atLeast(p.stopped(), out.describe()), Text: s.text(), Omitted: s.omitted(p.stopped())}, nil
}

// dropped reports whether the paragraph, cell or table being read has
// dropped text, which the cap would not have shown.
func (w *odfFlow) dropped() bool {
	return w.text.lost > 0 || w.table != nil && (w.table.cell.lost > 0 || w.table.out.measuring)
}

// odfFlow writes OpenDocument flowing text (a text document's body, the
// text of a slide's frames) as Markdown blocks.
type odfFlow struct {
	out    blockWriter
	styles *odfStyles
	keep   int // bytes of one paragraph or table kept
	text   textBuf
	inline *odfInline
	// A picture outside paragraphs (on a slide, anchored to a page):
	// its description and name, written at the frame's end.
	alt, title textBuf
	href       string

	lists    []odfList
	table    *odfTable
	tables   int // open tables; only the outermost is kept whole
	inStyles bool
}

func newODFFlow(out blockWriter, styles *odfStyles, keep int, comments bool) *odfFlow {
	return &odfFlow{out: out, styles: styles, keep: keep, inline: newODFInline(styles, keep, comments)}
}

type odfList struct {
	style string
	count int
	items int // paragraphs of the current item so far
}

func (w *odfFlow) readStyles(p *pkg, name string) error {
	return p.eachStart(name, func(sc *xmlScanner) error {
		w.styles.style(sc)
		return nil
	})
}

// walk reads the tokens of the element open when it is called (or of the
// whole part) and writes its text.
func (w *odfFlow) walk(sc *xmlScanner) error {
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		switch {
		case !ok:
			return err
		case k == tokStart:
			if err := w.start(sc); err != nil {
				return err
			}
		case k == tokEnd:
			w.end(sc)
		}
	}
}

func (w *odfFlow) start(sc *xmlScanner) error {
	switch {
	case sc.is(nsOffice, "automatic-styles"), sc.is(nsOffice, "styles"):
		w.inStyles = true
	case w.inStyles:
		w.styles.style(sc)
	case sc.is(nsText, "h"):
		level, _ := strconv.Atoi(sc.attrString(nsText, "outline-level"))
		w.text.reset(w.keep)
		err := w.inline.text(sc, &w.text)
		w.paragraph(max(level, 1), string(w.text.b), w.text.lost)
		return err
	case sc.is(nsText, "p"):
		level := w.styles.headingLevel(sc.attrString(nsText, "style-name"))
		w.text.reset(w.keep)
		err := w.inline.text(sc, &w.text)
		w.paragraph(level, string(w.text.b), w.text.lost)
		return err
	case sc.is(nsText, "list"):
		style := sc.attrString(nsText, "style-name")
		if style == "" && len(w.lists) > 0 {
			style = w.lists[len(w.lists)-1].style
		}
		w.lists = append(w.lists, odfList{style: style})
	case sc.is(nsText, "list-item"), sc.is(nsText, "list-header"):
		if n := len(w.lists); n > 0 {
			w.lists[n-1].count++
			w.lists[n-1].items = 0
		}
	case sc.is(nsTable, "table"):
		if w.tables++; w.tables == 1 {
			w.table = newODFTable(w.keep)
		}
	case w.tables == 1 && sc.is(nsTable, "table-row"):
		w.table.startRow(odfRepeat(sc, "number-rows-repeated"))
	case w.tables == 1 && (sc.is(nsTable, "table-cell") || sc.is(nsTable, "covered-table-cell")):
		w.table.startCell(odfRepeat(sc, "number-columns-repeated"), odfRepeat(sc, "number-columns-spanned"))
	case sc.is(nsDraw, "image"):
		w.href = sc.attrString(nsXLink, "href")
		if w.href == "" {
			w.href = "image"
		}
	case sc.is(nsSVG, "title"):
		w.title.reset(4096)
		return sc.eachText(w.title.write)
	case sc.is(nsSVG, "desc"):
		w.alt.reset(4096)
		return sc.eachText(w.alt.write)
	case sc.is(nsText, "note"), sc.is(nsOffice, "annotation"), sc.is(nsText, "tracked-changes"), sc.is(nsText, "sequence-decls"), sc.is(nsOffice, "binary-data"), sc.is(nsDraw, "object"), sc.is(nsDraw, "object-ole"):
		return sc.skip()
	}
	return nil
}

// image writes the picture of the frame just read, if it has a
// description.
func (w *odfFlow) image() {
	if w.href != "" {
		w.paragraph(0, image(altText(string(w.title.b), string(w.alt.b)), w.href), 0)
	}
	w.href = ""
	w.alt.reset(0)
	w.title.reset(0)
}

func (w *odfFlow) end(sc *xmlScanner) {
	switch {
	case sc.is(nsDraw, "frame"):
		w.image()
	case sc.is(nsOffice, "automatic-styles"), sc.is(nsOffice, "styles"):
		w.inStyles = false
	case sc.is(nsText, "list"):
		if n := len(w.lists); n > 0 {
			w.lists = w.lists[:n-1]
		}
	case w.tables == 1 && (sc.is(nsTable, "table-cell") || sc.is(nsTable, "covered-table-cell")):
		w.table.endCell()
	case w.tables == 1 && sc.is(nsTable, "table-row"):
		w.table.endRow()
	case sc.is(nsTable, "table"):
		if w.tables--; w.tables == 0 {
			w.out.table(w.table.out)
			w.table = nil
		}
	}
}

// paragraph writes a paragraph where it stands: in a table cell, as a
// list item, or as a heading or paragraph.
func (w *odfFlow) paragraph(level int, text string, lost int) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
	case w.table != nil:
		w.table.text(text, lost)
		return
	case len(w.lists) > 0:
		l := &w.lists[len(w.lists)-1]
		marker := ""
		if l.items == 0 {
			marker = "-"
			if w.styles.ordered[w.lists[0].style][len(w.lists)] {
				marker = strconv.Itoa(l.count) + "."
			}
		}
		l.items++
		w.out.item(len(w.lists)-1, marker, text)
	default:
		w.out.paragraph(level, text)
	}
	w.out.lost(lost)
}

// maxTableCells bounds the cells a document table may expand to through
// repetition counts (an OpenDocument cell may say it repeats a billion
// times).
const maxTableCells = 1 << 20

// odfTable collects a document table into rows, expanding repeated rows
// and cells but never past maxTableCells, and not at all for empty
// trailing ones.
type odfTable struct {
	out        *tableRows
	row        []string
	rowLost    int
	cell       textBuf
	keep       int
	rowRepeat  int
	cellRepeat int
	span       int
	emptyCells int
	emptyRows  int
	cells      int
}

func newODFTable(keep int) *odfTable { return &odfTable{out: newTableRows(keep), keep: keep} }

func (t *odfTable) startRow(repeat int) {
	t.row, t.rowLost, t.rowRepeat, t.emptyCells = t.row[:0], 0, repeat, 0
}

func (t *odfTable) startCell(repeat, span int) {
	t.cell.reset(t.keep)
	t.cellRepeat, t.span = repeat, span
}

func (t *odfTable) text(s string, lost int) {
	if t.cell.len() > 0 {
		t.cell.writeString("\n")
	}
	t.cell.writeString(s)
	t.cell.lost += lost
}

func (t *odfTable) add(n int, v string) {
	n = min(n, maxSheetCols-len(t.row), maxTableCells-t.cells)
	for i := 0; i < n; i++ {
		t.row = append(t.row, v)
	}
	t.cells += max(n, 0)
}

func (t *odfTable) endCell() {
	if t.cell.len() == 0 {
		t.emptyCells += t.cellRepeat * t.span
		t.rowLost += t.cell.lost
		return
	}
	v := string(t.cell.b)
	t.rowLost += t.cell.lost
	t.add(t.emptyCells, "")
	t.emptyCells = 0
	for i := 0; i < t.cellRepeat && len(t.row) < maxSheetCols; i++ {
		t.add(1, v)
		t.add(t.span-1, "")
	}
}

func (t *odfTable) endRow() {
	if len(t.row) == 0 {
		t.emptyRows += t.rowRepeat
		return
	}
	for i := 0; i < min(t.emptyRows, maxTableCells-t.cells); i++ {
		t.out.startRow()
		t.out.endRow()
		t.cells++
	}
	t.emptyRows = 0
	for i := 0; i < t.rowRepeat && t.cells < maxTableCells; i++ {
		t.out.startRow()
		for j, c := range t.row {
			lost := 0
			if i == 0 && j == 0 {
				lost = t.rowLost
			}
			t.out.cell(c, lost)
		}
		t.out.endRow()
		t.cells += len(t.row)
	}
}
