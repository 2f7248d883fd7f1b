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

func (odpConverter) Format() Format {
	return odfFormat("odp", []string{"application/vnd.oasis.opendocument.presentation"}, ".odp", ".otp")
}

func (odpConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	_, sc, c, err := openContent(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	d := newDeck(lim)
	styles := newODFStyles()
	inStyles := false
	for {
		k, ok, err := sc.inside(0)
		if err != nil {
			return nil, err
		}
		if !ok {
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
			if len(d.parts) >= lim.MaxSheets {
				return nil, limitErr("", "slides", int64(lim.MaxSheets))
			}
			hidden := styles.hidden[sc.attrString(nsDraw, "style-name")]
			sl, err := readODPPage(sc, styles, keepBytes(lim))
			if err != nil {
				return nil, withPart("slide "+strconv.Itoa(len(d.parts)+1), err)
			}
			sl.hidden = hidden
			d.add(sl)
		}
	}
	return d.result("odp"), nil
}

// readODPPage reads a draw:page whose start tag was just read. Frames of
// class "title" give the title, frames in presentation:notes the notes;
// page numbers, dates and footers are left out.
func readODPPage(sc *xmlScanner, styles *odfStyles, keep int) (*slide, error) {
	sl := newSlide(keep)
	d := sc.depth()
	inNotes := false
	for {
		k, ok, err := sc.inside(d)
		if err != nil {
			return nil, err
		}
		if !ok {
			return sl, nil
		}
		switch {
		case k == tokEnd && sc.is(nsPresentation, "notes"):
			inNotes = false
		case k != tokStart:
		case sc.is(nsPresentation, "notes"):
			inNotes = true
		case sc.is(nsDraw, "frame"), sc.is(nsDraw, "custom-shape"), sc.is(nsDraw, "rect"):
			class := sc.attrString(nsPresentation, "class")
			rec := newRecorder(keep)
			w := newODFFlow(rec, styles, keep, false)
			if err := w.walk(sc); err != nil {
				return nil, err
			}
			w.image()
			switch {
			case class == "page-number", class == "date-time", class == "footer", class == "header", class == "page":
			case inNotes:
				// The notes placeholder, and any text box on the notes
				// page.
				sl.notes.appendRecorded(rec)
			case class == "title":
				if sl.title.len() > 0 {
					sl.title.writeString(" ")
				}
				sl.title.writeString(strings.Join(strings.Fields(strings.Join(rec.texts(), " ")), " "))
			default:
				sl.body.appendRecorded(rec)
			}
		}
	}
}
