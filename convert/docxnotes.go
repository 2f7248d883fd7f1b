package convert

import (
	"strings"
)

// docxNotes are the footnotes, endnotes and comments of a Word document,
// by their IDs, read from their parts before the body so that each can be
// written where the body refers to it. Their text together is bounded
// like a paragraph's (keepBytes): notes past it are left out.
type docxNotes struct {
	foot, end, comments map[string]string
	left                int
}

// readNotes reads the notes part of kind elem (footnote, endnote or
// comment); separators and continuation marks are not notes.
func (p *pkg) readNotes(part, elem string, n *docxNotes) (map[string]string, error) {
	out := map[string]string{}
	if part == "" || !p.has(part) {
		return out, nil
	}
	var text textBuf
	err := p.eachStart(part, func(sc *xmlScanner) error {
		if !sc.is(nsWML, elem) {
			return nil
		}
		id, typ := sc.attrString(nsWML, "id"), sc.attrString(nsWML, "type")
		author := sc.attrString(nsWML, "author")
		text.reset(n.left)
		if err := noteText(sc, &text); err != nil {
			return err
		}
		s := strings.Join(strings.Fields(string(text.b)), " ")
		if typ == "separator" || typ == "continuationSeparator" || typ == "continuationNotice" || s == "" || len(out) >= maxFormats {
			return nil
		}
		if author != "" {
			s = author + ": " + s
		}
		n.left -= len(s)
		out[id] = s
		return nil
	})
	return out, err
}

// noteText reads the text of the note whose start tag was just read:
// its runs' text, paragraphs and breaks as spaces, deleted and hidden
// text and field codes left out.
func noteText(sc *xmlScanner, t *textBuf) error {
	d := sc.depth()
	hidden := false
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return err
		}
		switch {
		case k == tokEnd && sc.is(nsWML, "p"):
			t.writeString(" ")
		case k != tokStart || sc.ns != nsWML:
		case sc.is(nsWML, "r"):
			hidden = false
		case sc.is(nsWML, "rPr"):
			if hidden, err = runHidden(sc); err != nil {
				return err
			}
		case sc.is(nsWML, "t") && !hidden:
			if err := sc.eachText(t.write); err != nil {
				return err
			}
		case sc.is(nsWML, "tab"), sc.is(nsWML, "br"):
			t.writeString(" ")
		case sc.is(nsWML, "del"), sc.is(nsWML, "delText"), sc.is(nsWML, "instrText"), sc.is(nsWML, "pPr"):
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
}

// runHidden reads run properties whose start tag was just read and
// reports whether they hide the run's text (w:vanish).
func runHidden(sc *xmlScanner) (bool, error) {
	d := sc.depth()
	hidden := false
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return hidden, err
		}
		if k == tokStart && (sc.is(nsWML, "vanish") || sc.is(nsWML, "specVanish")) {
			v := sc.attrString(nsWML, "val")
			hidden = v != "0" && v != "false" && v != "off"
		}
	}
}
