package convert

import (
	"context"
	"strconv"
	"strings"
)

// ODP returns the converter of OpenDocument presentations (.odp, .otp)
// to Markdown, by the same rules as [PPTX].
func ODP() Converter { return odpConverter{} }

type odpConverter struct{}

const odpMime = "application/vnd.oasis.opendocument.presentation"

func (odpConverter) Format() Format {
	return Format{
		Kind:       "odp",
		MediaTypes: []string{odpMime, "application/vnd.oasis.opendocument.presentation-template"},
		Extensions: []string{".odp", ".otp"},
		Sniff:      odfSniff(odpMime),
	}
}

func (odpConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, err := openPackage(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	sc, c, err := p.scan("content.xml")
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s := newSink(lim.MaxChars, "paragraphs")
	out := &blocks{sink: s}
	styles := newODFStyles()
	var parts []Part
	hidden := 0
	inStyles := false
	for {
		k, err := sc.next()
		if err != nil {
			return nil, err
		}
		if k == tokEOF {
			break
		}
		if k == tokEnd && sc.is(nsOffice, "automatic-styles") {
			inStyles = false
		}
		if k != tokStart {
			continue
		}
		switch {
		case sc.is(nsOffice, "automatic-styles"):
			inStyles = true
		case inStyles:
			styles.style(sc)
		case sc.is(nsDraw, "page"):
			if len(parts) >= lim.MaxSheets {
				return nil, limitErr("", "slides", int64(lim.MaxSheets))
			}
			pt := Part{Kind: "slide", Hidden: styles.hidden[sc.attrString(nsDraw, "style-name")]}
			sl, err := readODPPage(sc, styles)
			if err != nil {
				return nil, withPart("slide "+strconv.Itoa(len(parts)+1), err)
			}
			pt.Name = sl.title
			heading := "Slide " + strconv.Itoa(len(parts)+1)
			if pt.Hidden {
				heading += " (hidden)"
				hidden++
			}
			if sl.title != "" {
				heading += ": " + sl.title
			}
			out.paragraph(1, heading)
			sl.flow(out)
			if len(sl.notes) > 0 {
				out.paragraph(2, "Notes")
				for _, n := range sl.notes {
					out.paragraph(0, n)
				}
			}
			parts = append(parts, pt)
		}
	}
	desc := plural(len(parts), "slide")
	if hidden > 0 {
		desc += ", " + thousands(hidden) + " hidden"
	}
	return &Result{Kind: "odp", As: "Markdown", Description: desc, Parts: parts, Text: s.text(), Omitted: s.omit}, nil
}

// odpPage is a slide's content, gathered before it is written because
// its title frame may come after others.
type odpPage struct {
	title string
	body  blockRecorder
	notes []string
}

func (sl *odpPage) flow(out *blocks) { sl.body.replay(out) }

// readODPPage reads a draw:page whose start tag was just read. Frames of
// class "title" give the title, frames in presentation:notes the notes;
// page numbers, dates and footers are left out.
func readODPPage(sc *xmlScanner, styles *odfStyles) (*odpPage, error) {
	sl := &odpPage{}
	d := sc.depth()
	inNotes := false
	for {
		k, err := sc.next()
		if err != nil {
			return nil, err
		}
		switch {
		case k == tokEOF:
			return nil, errIncomplete
		case k == tokEnd && sc.depth() < d:
			return sl, nil
		case k == tokEnd && sc.is(nsPresentation, "notes"):
			inNotes = false
		case k != tokStart:
		case sc.is(nsPresentation, "notes"):
			inNotes = true
		case sc.is(nsDraw, "frame"), sc.is(nsDraw, "custom-shape"), sc.is(nsDraw, "rect"):
			class := sc.attrString(nsPresentation, "class")
			var rec blockRecorder
			w := &odfFlow{out: &rec, styles: styles}
			if err := w.walk(sc); err != nil {
				return nil, err
			}
			switch {
			case inNotes:
				if class == "notes" {
					sl.notes = append(sl.notes, rec.texts()...)
				}
			case class == "title":
				sl.title = strings.Join(strings.Fields(strings.Join(rec.texts(), " ")), " ")
			case class == "page-number", class == "date-time", class == "footer", class == "header", class == "page":
			default:
				sl.body.calls = append(sl.body.calls, rec.calls...)
			}
		}
	}
}
