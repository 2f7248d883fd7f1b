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
	p, err := openPackage(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	main, err := p.mainPart("ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	slides, err := p.slideList(main)
	if err != nil {
		return nil, err
	}
	d := newDeck(lim)
	for i, part := range slides {
		sl, err := p.readSlide(part)
		if err != nil {
			return nil, withPart("slide "+strconv.Itoa(i+1), err)
		}
		d.add(sl)
	}
	return d.result("pptx"), nil
}

// slideList returns the slides' parts in the presentation's order.
func (p *pkg) slideList(main string) ([]string, error) {
	rels, err := p.relsOf(main)
	if err != nil {
		return nil, err
	}
	var out []string
	err = p.eachStart(main, func(sc *xmlScanner) error {
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

// slidePara is a paragraph of a shape: a list item at a level, or a
// plain paragraph (level -1).
type slidePara struct {
	text  string
	level int
}

// add writes a shape's paragraphs to the slide's body.
func (sl *slide) add(paras []slidePara) {
	for _, p := range paras {
		if p.level >= 0 {
			sl.body.item(p.level, "-", p.text)
		} else {
			sl.body.paragraph(0, p.text)
		}
	}
}

func (p *pkg) readSlide(part string) (*slide, error) {
	sl := &slide{}
	if err := p.readShapes(part, sl, false); err != nil {
		return nil, err
	}
	rels, err := p.relsOf(part)
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		if relType(r.typ, "notesSlide") && !r.external && p.has(r.target) {
			if err := p.readShapes(r.target, sl, true); err != nil {
				return nil, err
			}
			break
		}
	}
	return sl, nil
}

// readShapes reads the text of a slide's or notes page's shapes.
func (p *pkg) readShapes(part string, sl *slide, notes bool) error {
	sc, c, err := p.scan(part)
	if err != nil {
		return err
	}
	defer c.Close()
	var (
		hasPh      bool
		phType     string
		paras      []slidePara
		para       *strings.Builder
		level      int
		bullet     bool
		rows       [][]string
		cell       *strings.Builder
		tableDepth int
	)
	for {
		k, ok, err := sc.inside(0)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if k == tokStart {
			switch {
			case sc.is(nsPML, "sld"):
				sl.hidden = sc.attrString(nsNone, "show") == "0"
			case sc.is(nsPML, "sp"):
				hasPh, phType, paras = false, "", nil
			case sc.is(nsPML, "ph"):
				hasPh, phType = true, sc.attrString(nsNone, "type")
			case sc.is(nsDML, "tbl"):
				if tableDepth++; tableDepth == 1 {
					rows = [][]string{}
				}
			case sc.is(nsDML, "tr") && tableDepth == 1:
				rows = append(rows, nil)
			case sc.is(nsDML, "tc") && tableDepth == 1:
				cell = &strings.Builder{}
			case sc.is(nsDML, "p"):
				para, level, bullet = &strings.Builder{}, 0, hasPh && (phType == "" || phType == "body" || phType == "obj")
			case sc.is(nsDML, "pPr") && para != nil:
				if n, err := strconv.Atoi(sc.attrString(nsNone, "lvl")); err == nil && n >= 0 && n < 9 {
					level = n
				}
			case sc.is(nsDML, "buNone"):
				bullet = false
			case sc.is(nsDML, "buChar"), sc.is(nsDML, "buAutoNum"):
				bullet = true
			case sc.is(nsDML, "t") && para != nil:
				b, err := sc.collectText(nil)
				if err != nil {
					return err
				}
				para.Write(b)
			case sc.is(nsDML, "br") && para != nil:
				para.WriteByte('\n')
			}
			continue
		}
		if k != tokEnd {
			continue
		}
		switch {
		case sc.is(nsDML, "p") && para != nil:
			text := strings.TrimSpace(para.String())
			para = nil
			switch {
			case text == "":
			case cell != nil:
				if cell.Len() > 0 {
					cell.WriteByte('\n')
				}
				cell.WriteString(text)
			case bullet && !notes:
				paras = append(paras, slidePara{text: text, level: level})
			default:
				paras = append(paras, slidePara{text: text, level: -1})
			}
		case sc.is(nsDML, "tc") && cell != nil:
			rows[len(rows)-1] = append(rows[len(rows)-1], cell.String())
			cell = nil
		case sc.is(nsDML, "tbl"):
			if tableDepth--; tableDepth == 0 && !notes {
				sl.body.table(rows)
			}
		case sc.is(nsPML, "sp"):
			switch {
			case !hasPh && !notes:
				sl.add(paras)
			case notes && phType == "body":
				for _, p := range paras {
					sl.notes = append(sl.notes, p.text)
				}
			case notes:
			case phType == "title" || phType == "ctrTitle":
				var t []string
				for _, it := range paras {
					t = append(t, strings.ReplaceAll(it.text, "\n", " "))
				}
				sl.title = strings.Join(t, " ")
			case phType == "sldNum" || phType == "dt" || phType == "ftr" || phType == "hdr" || phType == "sldImg":
			default:
				sl.add(paras)
			}
			paras = nil
		}
	}
}
