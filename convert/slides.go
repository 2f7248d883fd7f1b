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
	// reading is what reads the slide's shapes into it, for dropped.
	reading interface{ dropped() bool }
	partial bool // reading stopped in it or before it
}

// dropped reports whether the slide, or the paragraph, cell or table
// being read into it, has dropped text the cap would not have shown.
func (sl *slide) dropped() bool {
	return sl.title.lost > 0 || sl.body.over != nil || sl.notes.over != nil || sl.reading != nil && sl.reading.dropped()
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
	unread int // slides not read: reading stopped past the cap before them
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
	d.parts = append(d.parts, Part{Kind: "slide", Name: title, Hidden: sl.hidden, Partial: sl.partial})
}

// result is the deck's [Result]; stopped says whether reading stopped
// past the cap, and counted whether the slides were counted all the same
// (a presentation's list of slides is read first).
func (d *deck) result(kind string, stopped, counted bool) *Result {
	desc := plural(len(d.parts), "slide")
	if stopped && !counted {
		desc = "at least " + desc
	}
	if d.hidden > 0 {
		desc += ", " + thousands(d.hidden) + " hidden"
	}
	if d.unread > 0 {
		desc += ", " + thousands(d.unread) + " not read (reading stopped past the cap)"
	}
	return &Result{Kind: kind, As: "Markdown", Description: desc, Parts: d.parts, Text: d.sink.text(), Omitted: d.sink.omitted(stopped)}
}
