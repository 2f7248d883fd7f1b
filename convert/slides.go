package convert

import "strconv"

// slide is a slide's content, gathered before it is written because its
// title may come after its other shapes.
type slide struct {
	title  string
	hidden bool
	body   blockRecorder
	notes  []string
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
	if sl.title != "" {
		heading += ": " + sl.title
	}
	d.out.paragraph(1, heading)
	sl.body.replay(d.out)
	if len(sl.notes) > 0 {
		d.out.paragraph(2, "Notes")
		for _, n := range sl.notes {
			d.out.paragraph(0, n)
		}
	}
	d.parts = append(d.parts, Part{Kind: "slide", Name: sl.title, Hidden: sl.hidden})
}

func (d *deck) result(kind string) *Result {
	desc := plural(len(d.parts), "slide")
	if d.hidden > 0 {
		desc += ", " + thousands(d.hidden) + " hidden"
	}
	return &Result{Kind: kind, As: "Markdown", Description: desc, Parts: d.parts, Text: d.sink.text(), Omitted: d.sink.omit}
}
