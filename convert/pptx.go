package convert

import (
	"context"
	"strconv"
	"strings"
)

// PPTX returns the converter of PowerPoint presentations (.pptx, .pptm
// and their templates and shows) to Markdown: one section per slide, in
// the presentation's order, headed by its number and title, then its
// text (body placeholders as list items), its tables, and its speaker
// notes. Slide numbers, dates and footers are left out.
func PPTX() Converter { return pptxConverter{} }

type pptxConverter struct{}

func (pptxConverter) Format() Format {
	return Format{
		Kind: "pptx",
		MediaTypes: []string{
			"application/vnd.openxmlformats-officedocument.presentationml.presentation",
			"application/vnd.openxmlformats-officedocument.presentationml.slideshow",
			"application/vnd.openxmlformats-officedocument.presentationml.template",
			"application/vnd.ms-powerpoint.presentation.macroenabled.12",
			"application/vnd.ms-powerpoint.slideshow.macroenabled.12",
		},
		Extensions: []string{".pptx", ".pptm", ".ppsx", ".ppsm", ".potx", ".potm"},
		Sniff:      func(in *Input, lim Limits) bool { return zipHas(in, lim, "ppt/presentation.xml") },
	}
}

func (pptxConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, main, rels, err := openMain(ctx, in, lim, "ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	slides, err := p.slideList(main, rels)
	if err != nil {
		return nil, err
	}
	d := newDeck(lim)
	var sl *slide
	p.watch(func() bool { return d.sink.full || sl != nil && sl.dropped() })
	for i, part := range slides {
		sl = newSlide(keepBytes(lim))
		if p.stopped() {
			// Reading stopped in a slide before: this one is not read.
			sl.partial = true
			d.unread++
			d.add(sl)
			continue
		}
		if err := p.readSlide(part, sl); err != nil {
			return nil, withPart("slide "+strconv.Itoa(i+1), err)
		}
		sl.partial = p.stopped()
		d.add(sl)
	}
	return d.result("pptx", p.stopped(), true), nil
}

// slideList returns the slides' parts in the presentation's order.
func (p *pkg) slideList(main string, rels []rel) ([]string, error) {
	var out []string
	err := p.eachStart(main, func(sc *xmlScanner) error {
		if !sc.is(nsPML, "sldId") {
			return nil
		}
		r, ok := relByID(rels, sc.attrString(nsRel, "id"))
		if !ok || r.external || !p.has(r.target) {
			return formatErr("", "the part of slide "+strconv.Itoa(len(out)+1)+" is missing", nil)
		}
		if len(out) >= p.lim.MaxSheets {
			return limitErr("", "slides", int64(p.lim.MaxSheets))
		}
		out = append(out, r.target)
		return nil
	})
	return out, err
}

// readSlide reads a slide's part, and its notes page, into sl.
func (p *pkg) readSlide(part string, sl *slide) error {
	if err := p.readShapes(part, sl, false); err != nil {
		return err
	}
	rels, err := p.relsOf(part)
	if err != nil {
		return err
	}
	for _, r := range rels {
		if relType(r.typ, "notesSlide") && !r.external && p.has(r.target) {
			return p.readShapes(r.target, sl, true)
		}
	}
	return nil
}

// shapeReader reads the text of a slide's or notes page's shapes.
type shapeReader struct {
	p     *pkg
	sl    *slide
	notes bool
	keep  int
	parts map[string]string // the part's relationships' targets, by ID
	alt   string            // the description of the shape being read
	image string            // the picture of the p:pic being read

	hasPh      bool
	phType     string
	para       textBuf
	inPara     bool
	level      int
	bullet     bool
	table      *tableRows
	cell       textBuf
	inCell     bool
	tableDepth int
}

// readShapes reads the text of a slide's or notes page's shapes. A
// shape's placeholder type, read before its text, says where its
// paragraphs go: the title, the body (placeholders of body type as list
// items), or nowhere (slide numbers, dates, footers). On a notes page,
// the notes are the body placeholder's text and any text box's, as
// LibreOffice writes them; the slide image and the numbers are left out.
func (p *pkg) readShapes(part string, sl *slide, notes bool) error {
	sc, c, err := p.scan(part)
	if err != nil {
		return err
	}
	defer c.Close()
	r := &shapeReader{p: p, sl: sl, notes: notes, keep: keepBytes(p.lim), parts: map[string]string{}}
	sl.reading = r
	rels, err := p.relsOf(part)
	if err != nil {
		return err
	}
	for _, rl := range rels {
		if !rl.external {
			r.parts[rl.id] = rl.target
		}
	}
	for {
		k, ok, err := sc.inside(0)
		if !ok {
			return err
		}
		switch k {
		case tokStart:
			if err := r.start(sc); err != nil {
				return err
			}
		case tokEnd:
			r.end(sc)
		}
	}
}

func (r *shapeReader) start(sc *xmlScanner) error {
	switch {
	case sc.is(nsPML, "sld"):
		r.sl.hidden = sc.attrString(nsNone, "show") == "0"
	case sc.is(nsPML, "sp"):
		r.hasPh, r.phType = false, ""
	case sc.is(nsPML, "pic"):
		r.alt, r.image = "", ""
	case sc.is(nsPML, "cNvPr"):
		r.alt = altText(sc.attrString(nsNone, "title"), sc.attrString(nsNone, "descr"))
	case sc.is(nsDML, "blip"):
		r.image = r.parts[sc.attrString(nsRel, "embed")]
	case sc.is(nsChart, "chart") && !r.notes:
		if part := r.parts[sc.attrString(nsRel, "id")]; part != "" && r.p.has(part) {
			ch, err := r.p.readChart(part)
			if err != nil {
				return err
			}
			ch.write(r.sl.body, r.keep)
		}
	case sc.is(nsPML, "ph"):
		r.hasPh, r.phType = true, sc.attrString(nsNone, "type")
	case sc.is(nsDML, "tbl"):
		if r.tableDepth++; r.tableDepth == 1 {
			r.table = newTableRows(r.keep)
		}
	case sc.is(nsDML, "tr") && r.tableDepth == 1:
		r.table.startRow()
	case sc.is(nsDML, "tc") && r.tableDepth == 1:
		r.cell.reset(r.keep)
		r.inCell = true
	case sc.is(nsDML, "p"):
		r.para.reset(r.keep)
		r.inPara, r.level = true, 0
		r.bullet = r.hasPh && (r.phType == "" || r.phType == "body" || r.phType == "obj")
	case sc.is(nsDML, "pPr") && r.inPara:
		if n, err := strconv.Atoi(sc.attrString(nsNone, "lvl")); err == nil && n >= 0 && n < 9 {
			r.level = n
		}
	case sc.is(nsDML, "buNone"):
		r.bullet = false
	case sc.is(nsDML, "buChar"), sc.is(nsDML, "buAutoNum"):
		r.bullet = true
	case sc.is(nsDML, "t") && r.inPara:
		return sc.eachText(r.para.write)
	case sc.is(nsDML, "br") && r.inPara:
		r.para.writeString("\n")
	}
	return nil
}

func (r *shapeReader) end(sc *xmlScanner) {
	switch {
	case sc.is(nsPML, "pic"):
		if r.image != "" && !r.notes {
			r.sl.body.paragraph(0, image(r.alt, r.image))
		}
		r.alt, r.image = "", ""
	case sc.is(nsDML, "p") && r.inPara:
		r.inPara = false
		r.paragraph(strings.TrimSpace(string(r.para.b)), r.para.lost)
	case sc.is(nsDML, "tc") && r.inCell:
		r.table.cell(string(r.cell.b), r.cell.lost)
		r.inCell = false
	case sc.is(nsDML, "tr") && r.tableDepth == 1:
		r.table.endRow()
	case sc.is(nsDML, "tbl"):
		if r.tableDepth--; r.tableDepth == 0 && !r.notes {
			r.sl.body.table(r.table)
		}
	}
}

// dropped reports whether the paragraph, cell or table being read has
// dropped text that would be shown: not a footer's or a slide number's,
// which are left out anyway, nor a table's on the notes page.
func (r *shapeReader) dropped() bool {
	if r.notes && r.tableDepth > 0 {
		return false
	}
	if r.inCell {
		return r.para.lost > 0 || r.cell.lost > 0 || r.table.measuring
	}
	hidden := r.phType == "sldNum" || r.phType == "dt" || r.phType == "ftr" || r.phType == "hdr" || r.phType == "sldImg" ||
		r.notes && r.hasPh && r.phType != "body"
	return !hidden && r.para.lost > 0 || r.table != nil && r.table.measuring
}

// paragraph puts a finished paragraph where its shape says.
func (r *shapeReader) paragraph(text string, lost int) {
	sl := r.sl
	switch {
	case text == "" && lost == 0:
	case r.inCell:
		if r.cell.len() > 0 {
			r.cell.writeString("\n")
		}
		r.cell.writeString(text)
		r.cell.lost += lost
	case r.phType == "sldNum" || r.phType == "dt" || r.phType == "ftr" || r.phType == "hdr" || r.phType == "sldImg":
	case r.notes:
		if !r.hasPh || r.phType == "body" {
			sl.notes.paragraph(0, text)
			sl.notes.lost(lost)
		}
	case r.hasPh && (r.phType == "title" || r.phType == "ctrTitle"):
		if sl.title.len() > 0 {
			sl.title.writeString(" ")
		}
		sl.title.writeString(strings.ReplaceAll(text, "\n", " "))
		sl.title.lost += lost
	case r.bullet:
		sl.body.item(r.level, "-", text)
		sl.body.lost(lost)
	default:
		sl.body.paragraph(0, text)
		sl.body.lost(lost)
	}
}
