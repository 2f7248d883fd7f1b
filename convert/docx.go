package convert

import (
	"context"
	"strconv"
	"strings"
)

// DOCX returns the converter of Word documents (.docx, .docm and their
// templates) to Markdown: headings as #, list items as - or 1., tables
// as Markdown tables, links as [text](url). Deleted text of tracked
// changes, field codes, and the fallback copy of alternate content are
// left out; text boxes are kept as paragraphs.
func DOCX() Converter { return docxConverter{} }

type docxConverter struct{}

func (docxConverter) Format() Format {
	return Format{
		Kind: "docx",
		MediaTypes: []string{
			"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			"application/vnd.openxmlformats-officedocument.wordprocessingml.template",
			"application/vnd.ms-word.document.macroenabled.12",
			"application/vnd.ms-word.template.macroenabled.12",
		},
		Extensions: []string{".docx", ".docm", ".dotx", ".dotm"},
		Sniff:      func(in *Input, lim Limits) bool { return zipHas(in, lim, "word/document.xml") },
	}
}

func (docxConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, main, rels, err := openMain(ctx, in, lim, "word/document.xml")
	if err != nil {
		return nil, err
	}
	d := &docxReader{p: p, links: map[string]string{}, parts: map[string]string{}, counters: map[string][]int{}, keep: keepBytes(lim), comments: in.opts.Comments}
	var stylesPart, numberingPart, footPart, endPart, commentsPart string
	for _, r := range rels {
		switch {
		case relType(r.typ, "styles"):
			stylesPart = r.target
		case relType(r.typ, "numbering"):
			numberingPart = r.target
		case relType(r.typ, "footnotes"):
			footPart = r.target
		case relType(r.typ, "endnotes"):
			endPart = r.target
		case relType(r.typ, "comments"):
			commentsPart = r.target
		case relType(r.typ, "hyperlink") && r.external:
			d.links[r.id] = r.target
		case !r.external:
			d.parts[r.id] = r.target
		}
	}
	d.notes.left = d.keep
	if d.notes.foot, err = p.readNotes(footPart, "footnote", &d.notes); err != nil {
		return nil, err
	}
	if d.notes.end, err = p.readNotes(endPart, "endnote", &d.notes); err != nil {
		return nil, err
	}
	if d.comments {
		if d.notes.comments, err = p.readNotes(commentsPart, "comment", &d.notes); err != nil {
			return nil, err
		}
	}
	if d.styles, err = p.docxStyles(stylesPart); err != nil {
		return nil, err
	}
	if d.numbering, err = p.docxNumbering(numberingPart); err != nil {
		return nil, err
	}
	sc, c, err := p.scan(main)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s := newSink(lim.MaxChars, "paragraphs")
	d.sc, d.out = sc, &blocks{sink: s}
	p.watch(func() bool { return s.full || d.dropped() })
	if err := d.walk(); err != nil {
		return nil, err
	}
	for _, n := range d.refs {
		d.out.paragraph(0, "[^"+n.label+"]: "+n.text)
	}
	return &Result{Kind: "docx", As: "Markdown", Description: atLeast(p.stopped(), d.out.describe()), Text: s.text(), Omitted: s.omitted(p.stopped())}, nil
}

// dropped reports whether an open paragraph, cell or table has dropped
// text, which the cap would not have shown: the text is cut.
func (d *docxReader) dropped() bool {
	if d.cell.lost > 0 || d.table != nil && d.table.measuring {
		return true
	}
	if d.depth > 0 && !d.inCell {
		return false // a paragraph in a table but in no cell is left out
	}
	for _, p := range d.paras {
		if p.text.lost > 0 {
			return true
		}
	}
	return false
}

type docxReader struct {
	p         *pkg
	sc        *xmlScanner
	out       *blocks
	parts     map[string]string // the targets of the main part's relationships, by ID
	notes     docxNotes
	refs      []noteRef // the notes referred to, in order
	nFoot     int
	nEnd      int
	nComments int
	comments  bool
	hidden    bool   // the current run's text is hidden (w:vanish)
	alt       string // the current drawing's description
	image     string // the current drawing's picture
	charts    []*chart

	styles    map[string]docxStyle
	numbering map[string]map[int]docxLevel
	links     map[string]string
	counters  map[string][]int

	paras  []*docxPara // open paragraphs; a text box's nest in a run
	free   []*docxPara // paragraphs to reuse
	keep   int         // bytes of one paragraph, cell or table kept
	table  *tableRows  // the outermost open table's rows
	cell   textBuf
	inCell bool
	span   int
	depth  int // open tables
}

type docxPara struct {
	style, numID, ilvl string
	outline            int
	text               textBuf // reused: emit reads it through bytesView and nothing keeps it
	linkAt             int
	link               string
}

func (d *docxReader) para() *docxPara {
	if len(d.paras) == 0 {
		return nil
	}
	return d.paras[len(d.paras)-1]
}

func (d *docxReader) addText(s string) {
	if p := d.para(); p != nil {
		p.text.writeString(s)
	}
}

func (d *docxReader) walk() error {
	sc := d.sc
	for {
		k, ok, err := sc.inside(0)
		if !ok {
			return err
		}
		switch k {
		case tokStart:
			if err := d.start(); err != nil {
				return err
			}
		case tokEnd:
			d.end()
		}
	}
}

// noteRef is a note the body refers to, written after the body.
type noteRef struct {
	label, text string
}

// ref writes a reference to note id of the given kind, labelled by its
// order, and keeps the note for the end.
func (d *docxReader) ref(notes map[string]string, prefix string, n *int) {
	text, ok := notes[d.sc.attrString(nsWML, "id")]
	if !ok {
		return
	}
	*n++
	label := prefix + strconv.Itoa(*n)
	d.addText("[^" + label + "]")
	d.refs = append(d.refs, noteRef{label, text})
}

// drawing reads what a drawing's parts say: its description (alt text),
// its picture, and a chart it shows.
func (d *docxReader) drawing() error {
	sc := d.sc
	switch {
	case sc.is(nsWPD, "inline"), sc.is(nsWPD, "anchor"):
		d.alt, d.image = "", ""
	case sc.is(nsWPD, "docPr"):
		d.alt = altText(sc.attrString(nsNone, "title"), sc.attrString(nsNone, "descr"))
	case sc.is(nsDML, "blip"):
		d.image = d.parts[sc.attrString(nsRel, "embed")]
	case sc.is(nsChart, "chart"):
		if part := d.parts[sc.attrString(nsRel, "id")]; part != "" && d.p.has(part) && len(d.charts) < maxFormats {
			ch, err := d.p.readChart(part)
			if err != nil {
				return err
			}
			d.charts = append(d.charts, ch)
		}
	}
	return nil
}

// altText joins a picture's title and description.
func altText(title, descr string) string {
	title, descr = strings.TrimSpace(title), strings.TrimSpace(descr)
	switch {
	case title == "" || title == descr:
		return descr
	case descr == "":
		return title
	}
	return title + ": " + descr
}

// image writes a picture with its description as Markdown; a picture
// without one says nothing worth a model's reading.
func image(alt, part string) string {
	alt = strings.Join(strings.Fields(alt), " ")
	if alt == "" {
		return ""
	}
	alt = strings.NewReplacer("[", "(", "]", ")").Replace(alt)
	name := part[strings.LastIndexByte(part, '/')+1:]
	return "![" + alt + "](" + strings.ReplaceAll(name, " ", "%20") + ")"
}

func (d *docxReader) start() error {
	sc := d.sc
	if sc.ns == nsMC && string(sc.local) == "Fallback" {
		return sc.skip()
	}
	if sc.ns == nsWPD || sc.ns == nsDML || sc.ns == nsChart {
		return d.drawing()
	}
	if sc.ns != nsWML {
		return nil
	}
	switch string(sc.local) {
	case "r":
		d.hidden = false
	case "rPr":
		var err error
		d.hidden, err = runHidden(sc)
		return err
	case "footnoteReference":
		d.ref(d.notes.foot, "", &d.nFoot)
	case "endnoteReference":
		d.ref(d.notes.end, "e", &d.nEnd)
	case "commentReference":
		if d.comments {
			d.ref(d.notes.comments, "c", &d.nComments)
		}
	case "p":
		var p *docxPara
		if n := len(d.free); n > 0 {
			p, d.free = d.free[n-1], d.free[:n-1]
			*p = docxPara{text: p.text}
		} else {
			p = &docxPara{}
		}
		p.text.reset(d.keep)
		d.paras = append(d.paras, p)
	case "pPr":
		return d.paragraphProps()
	case "t":
		if p := d.para(); p != nil && !d.hidden {
			return sc.eachText(p.text.write)
		}
	case "tab", "ptab":
		if !d.hidden {
			d.addText("\t")
		}
	case "br", "cr":
		if !d.hidden {
			d.addText("\n")
		}
	case "noBreakHyphen":
		if !d.hidden {
			d.addText("-")
		}
	case "hyperlink":
		if p := d.para(); p != nil {
			p.linkAt, p.link = p.text.len(), d.links[sc.attrString(nsRel, "id")]
		}
	case "tbl":
		if d.depth++; d.depth == 1 {
			d.table = newTableRows(d.keep)
		}
	case "tr":
		if d.depth == 1 {
			d.table.startRow()
		}
	case "tc":
		if d.depth == 1 {
			d.cell.reset(d.keep)
			d.inCell, d.span = true, 1
		}
	case "gridSpan":
		if n, err := strconv.Atoi(sc.attrString(nsWML, "val")); err == nil && d.depth == 1 && n > 1 && n <= maxSheetCols {
			d.span = n
		}
	case "del", "moveFrom", "delText", "instrText", "sectPr":
		return sc.skip()
	}
	return nil
}

// paragraphProps reads a paragraph's style, list numbering and outline
// level.
func (d *docxReader) paragraphProps() error {
	sc, p := d.sc, d.para()
	level := sc.depth()
	for {
		k, ok, err := sc.inside(level)
		if !ok {
			return err
		}
		switch {
		case k != tokStart || p == nil:
		case sc.is(nsWML, "pStyle"):
			p.style = sc.attrString(nsWML, "val")
		case sc.is(nsWML, "numId"):
			p.numID = sc.attrString(nsWML, "val")
		case sc.is(nsWML, "ilvl"):
			p.ilvl = sc.attrString(nsWML, "val")
		case sc.is(nsWML, "outlineLvl"):
			if n, err := strconv.Atoi(sc.attrString(nsWML, "val")); err == nil && n >= 0 && n < 9 {
				p.outline = n + 1
			}
		case sc.is(nsWML, "rPr"):
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
}

func (d *docxReader) end() {
	sc := d.sc
	if sc.is(nsWPD, "inline") || sc.is(nsWPD, "anchor") {
		if d.image != "" {
			d.addText(image(d.alt, d.image))
		}
		d.alt, d.image = "", ""
		return
	}
	if sc.ns != nsWML {
		return
	}
	switch string(sc.local) {
	case "p":
		if p := d.para(); p != nil {
			d.paras = d.paras[:len(d.paras)-1]
			d.emit(p)
			d.free = append(d.free, p)
			if len(d.paras) == 0 && d.depth == 0 {
				for _, ch := range d.charts {
					ch.write(d.out, d.keep)
				}
				d.charts = d.charts[:0]
			}
		}
	case "hyperlink":
		if p := d.para(); p != nil && p.link != "" {
			if at := min(p.linkAt, p.text.len()); p.text.lost == 0 && strings.TrimSpace(string(p.text.b[at:])) != "" {
				linked := "[" + string(p.text.b[at:]) + "](" + p.link + ")"
				p.text.b = p.text.b[:at]
				p.text.writeString(linked)
			}
			p.link = ""
		}
	case "tc":
		if d.depth == 1 && d.inCell {
			d.table.cell(string(d.cell.b), d.cell.lost)
			for i := 1; i < d.span; i++ {
				d.table.cell("", 0)
			}
			d.inCell = false
		}
	case "tr":
		if d.depth == 1 {
			d.table.endRow()
		}
	case "tbl":
		if d.depth--; d.depth == 0 {
			d.out.table(d.table)
			d.table = nil
		}
	}
}

// emit writes a finished paragraph: into the open table's cell, or as a
// heading, a list item or a paragraph.
func (d *docxReader) emit(p *docxPara) {
	text := bytesView(p.text.b)
	if d.depth > 0 {
		if d.inCell && strings.TrimSpace(text) != "" {
			if d.cell.len() > 0 {
				d.cell.writeString("\n")
			}
			d.cell.writeString(strings.TrimSpace(text))
			d.cell.lost += p.text.lost
		}
		return
	}
	defer d.out.lost(p.text.lost)
	level := p.outline
	if level == 0 {
		level = headingLevel(d.styles, p.style)
	}
	if level > 0 {
		d.out.paragraph(level, text)
		return
	}
	numID, ilvl := p.numID, p.ilvl
	if numID == "" {
		numID, ilvl = styleNumbering(d.styles, p.style)
	}
	if numID == "" || numID == "0" || strings.TrimSpace(text) == "" {
		d.out.paragraph(0, text)
		return
	}
	lvl, _ := strconv.Atoi(ilvl)
	lvl = min(max(lvl, 0), 8)
	def, ok := d.numbering[numID][lvl]
	if !ok || !def.ordered {
		d.out.item(lvl, "-", text)
		return
	}
	c := d.counters[numID]
	if c == nil {
		c = make([]int, 9)
		d.counters[numID] = c
	}
	// A counter holds the last number given plus one; zero: not started.
	if c[lvl] == 0 {
		c[lvl] = def.start + 1
	} else {
		c[lvl]++
	}
	clear(c[lvl+1:])
	d.out.item(lvl, strconv.Itoa(c[lvl]-1)+".", text)
}
