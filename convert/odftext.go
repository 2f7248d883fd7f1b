package convert

import (
	"strconv"
	"strings"
)

// odfInline reads the inline content of OpenDocument paragraphs: text,
// spans, links, spaces, tabs and breaks, pictures with their
// descriptions, text boxes, and notes. Footnotes and endnotes (and
// comments, when asked for) are kept, as a [^1] where they stand and
// their text for the end; text that a style hides is left out.
type odfInline struct {
	styles   *odfStyles
	refs     []noteRef
	nFoot    int
	nEnd     int
	nComment int
	comments bool
	left     int // bytes of notes still kept
}

func newODFInline(styles *odfStyles, keep int, comments bool) *odfInline {
	return &odfInline{styles: styles, left: keep, comments: comments}
}

// text appends the text of the paragraph or heading whose start tag was
// just read to t.
func (in *odfInline) text(sc *xmlScanner, t *textBuf) error {
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return err
		}
		switch {
		case k == tokText:
			t.write(sc.text)
		case k != tokStart:
		case sc.is(nsText, "s"):
			n, err := strconv.Atoi(sc.attrString(nsText, "c"))
			if err != nil || n < 1 {
				n = 1
			}
			t.writeString(strings.Repeat(" ", min(n, 1024)))
		case sc.is(nsText, "tab"):
			t.writeString("\t")
		case sc.is(nsText, "line-break"):
			t.writeString("\n")
		case sc.is(nsText, "span") && in.styles != nil && in.styles.hiddenText[sc.attrString(nsText, "style-name")]:
			if err := sc.skip(); err != nil {
				return err
			}
		case sc.is(nsText, "a"):
			href := sc.attrString(nsXLink, "href")
			at := t.len()
			if err := in.text(sc, t); err != nil {
				return err
			}
			if inner := t.b[at:]; href != "" && t.lost == 0 && strings.TrimSpace(string(inner)) != "" && !strings.HasPrefix(href, "#") {
				linked := "[" + string(inner) + "](" + href + ")"
				t.b = t.b[:at]
				t.writeString(linked)
			}
		case sc.is(nsDraw, "frame"):
			if err := in.frame(sc, t); err != nil {
				return err
			}
		case sc.is(nsText, "note"):
			prefix, n := "", &in.nFoot
			if sc.attrString(nsText, "note-class") == "endnote" {
				prefix, n = "e", &in.nEnd
			}
			if err := in.note(sc, t, prefix, n); err != nil {
				return err
			}
		case sc.is(nsOffice, "annotation") && in.comments:
			if err := in.note(sc, t, "c", &in.nComment); err != nil {
				return err
			}
		case sc.is(nsText, "note-citation"), sc.is(nsOffice, "annotation"), sc.is(nsText, "bookmark-ref"), sc.is(nsDraw, "object"), sc.is(nsDraw, "object-ole"):
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
}

// note reads a footnote, endnote or comment whose start tag was just
// read: its reference goes into t, its text to the notes. A comment's
// author (dc:creator) comes first.
func (in *odfInline) note(sc *xmlScanner, t *textBuf, prefix string, n *int) error {
	text, err := in.noteBody(sc)
	if err != nil || text == "" {
		return err
	}
	in.left -= len(text)
	*n++
	label := prefix + strconv.Itoa(*n)
	t.writeString("[^" + label + "]")
	in.refs = append(in.refs, noteRef{label, text})
	return nil
}

// noteBody returns the text of the note or comment whose start tag was
// just read, its author first ("Bo Chen: Check this").
func (in *odfInline) noteBody(sc *xmlScanner) (string, error) {
	var body, author textBuf
	body.reset(max(in.left, 0))
	author.reset(256)
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if err != nil {
			return "", err
		}
		if !ok {
			break
		}
		switch {
		case k != tokStart:
		case sc.is(nsText, "note-citation"):
			if err := sc.skip(); err != nil {
				return "", err
			}
		case sc.ns != nsText && sc.ns != nsOffice && string(sc.local) == "creator":
			if err := sc.eachText(author.write); err != nil {
				return "", err
			}
		case sc.is(nsText, "p"), sc.is(nsText, "h"):
			if body.len() > 0 {
				body.writeString(" ")
			}
			if err := in.text(sc, &body); err != nil {
				return "", err
			}
		case sc.ns != nsText && sc.ns != nsOffice && sc.ns != nsDraw:
			// dc:date and the like
			if err := sc.skip(); err != nil {
				return "", err
			}
		}
	}
	text := strings.Join(strings.Fields(string(body.b)), " ")
	if a := strings.TrimSpace(string(author.b)); a != "" && text != "" {
		text = a + ": " + text
	}
	return text, nil
}

// frame reads a frame within a paragraph whose start tag was just read:
// a picture is written with its description, a text box's paragraphs
// are written in line.
func (in *odfInline) frame(sc *xmlScanner, t *textBuf) error {
	var alt, title textBuf
	alt.reset(4096)
	title.reset(4096)
	href := ""
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch {
		case k != tokStart:
		case sc.is(nsDraw, "image"):
			href = sc.attrString(nsXLink, "href")
			if href == "" {
				href = "image"
			}
		case sc.is(nsSVG, "title"):
			if err := sc.eachText(title.write); err != nil {
				return err
			}
		case sc.is(nsSVG, "desc"):
			if err := sc.eachText(alt.write); err != nil {
				return err
			}
		case sc.is(nsText, "p"), sc.is(nsText, "h"):
			t.writeString(" ")
			if err := in.text(sc, t); err != nil {
				return err
			}
		case sc.is(nsOffice, "binary-data"), sc.is(nsDraw, "object"), sc.is(nsDraw, "object-ole"):
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
	if href != "" {
		t.writeString(image(altText(string(title.b), string(alt.b)), href))
	}
	return nil
}

// writeNotes writes the notes referred to, in order, after the text.
func (in *odfInline) writeNotes(w blockWriter) {
	for _, n := range in.refs {
		w.paragraph(0, "[^"+n.label+"]: "+n.text)
	}
	in.refs = in.refs[:0]
}
