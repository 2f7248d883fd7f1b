package convert

import (
	"strconv"
	"strings"
)

// slide is a slide's content, gathered before it is written because its
// title may come after its other shapes.
type slide struct {
	title  textBuf
	hidden bool
	body   *blockRecorder
	notes  *blockRecorder
}

func newSlide(keep int) *slide {
	sl := &slide{body: newRecorder(keep), notes: newRecorder(keep)}
	sl.title.reset(keep)
	return sl
}

// deck writes a presentation's slides as Markdown: a section per slide,
// "# Slide 2 (hidden): Title", its body, and "## Notes".
type deck struct {
	sink   *sink
	out    *blocks
	parts  []Part
	hidden int
}

func newDeck(lim Limits) *deck {
	s := newSink(lim.MaxChars, "paragraphs")
	return &deck{sink: s, out: &blocks{sink: s}}
}

func (d *deck) add(sl *slide) {
	heading := "Slide " + strconv.Itoa(len(d.parts)+1)
	if sl.hidden {
		heading += " (hidden)"
		d.hidden++
	}
	title := strings.TrimSpace(string(sl.title.b))
	if title != "" {
		heading += ": " + title
	}
	d.out.paragraph(1, heading)
	d.out.lost(sl.title.lost)
	sl.body.replay(d.out)
	if len(sl.notes.calls) > 0 || sl.notes.over != nil {
		d.out.paragraph(2, "Notes")
		sl.notes.replay(d.out)
	}
	d.parts = append(d.parts, Part{Kind: "slide", Name: title, Hidden: sl.hidden})
}

func (d *deck) result(kind string) *Result {
	desc := plural(len(d.parts), "slide")
	if d.hidden > 0 {
		desc += ", " + thousands(d.hidden) + " hidden"
	}
	return &Result{Kind: kind, As: "Markdown", Description: desc, Parts: d.parts, Text: d.sink.text(), Omitted: d.sink.omit}
}
