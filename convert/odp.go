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
	p, sc, c, err := openContent(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	d := newDeck(lim)
	var sl *slide
	p.watch(func() bool { return d.sink.full || sl != nil && sl.dropped() })
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
			sl = newSlide(keepBytes(lim))
			sl.hidden = styles.hidden[sc.attrString(nsDraw, "style-name")]
			if err := readODPPage(sc, sl, styles, keepBytes(lim)); err != nil {
				return nil, withPart("slide "+strconv.Itoa(len(d.parts)+1), err)
			}
			sl.partial = p.stopped()
			d.add(sl)
		}
	}
	// The slides are found as content.xml is read: past a stop, how many
	// follow is not known.
	return d.result("odp", p.stopped(), false), nil
}

// odpLeftOut reports the classes of frames whose text is left out.
func odpLeftOut(class string) bool {
	return class == "page-number" || class == "date-time" || class == "footer" || class == "header" || class == "page"
}

// odpFrame is a frame being read into a slide, for [slide.dropped].
type odpFrame struct {
	rec   *blockRecorder
	w     *odfFlow
	shown bool
}

func (f odpFrame) dropped() bool { return f.shown && (f.rec.over != nil || f.w.dropped()) }

// readODPPage reads a draw:page whose start tag was just read. Frames of
// class "title" give the title, frames in presentation:notes the notes;
// page numbers, dates and footers are left out.
func readODPPage(sc *xmlScanner, sl *slide, styles *odfStyles, keep int) error {
	d := sc.depth()
	inNotes := false
	for {
		k, ok, err := sc.inside(d)
		if err != nil {
			return err
		}
		if !ok {
			return nil
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
			// A title's text is joined into the slide's title, which
			// counts what it drops itself.
			sl.reading = odpFrame{rec, w, !odpLeftOut(class) && class != "title"}
			if err := w.walk(sc); err != nil {
				return err
			}
			sl.reading = nil
			w.image()
			switch {
			case odpLeftOut(class):
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
