package convert

import (
	"context"
	"encoding/binary"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// PPT returns the converter of PowerPoint 97–2003 presentations (.ppt,
// .pps, .pot) to Markdown, by the same rules as [PPTX]: a section per
// slide in the presentation's order, its title, its text (placeholders
// and text boxes, tables' cells among them) and its speaker notes; hidden
// slides are marked. Slides are found through the document's persist
// directory, as PowerPoint finds them after incremental saves.
// Presentations of PowerPoint 95 and earlier, and encrypted ones, are
// refused with a [*FormatError] saying LibreOffice reads them.
func PPT() Converter { return pptConverter{} }

type pptConverter struct{}

func (pptConverter) Format() Format {
	return Format{
		Kind:       "ppt",
		MediaTypes: []string{"application/vnd.ms-powerpoint", "application/mspowerpoint", "application/powerpoint", "application/x-mspowerpoint"},
		Extensions: []string{".ppt", ".pps", ".pot"},
		Sniff:      func(in *Input, lim Limits) bool { return cfbHas(in, lim, "PowerPoint Document") },
	}
}

// PowerPoint record types the converter reads.
const (
	pptDocument          = 0x03E8
	pptSlide             = 0x03EE
	pptSlideAtom         = 0x03EF
	pptNotes             = 0x03F0
	pptSlideShowInfo     = 0x03F9
	pptSlideListWithText = 0x0FF0
	pptSlidePersist      = 0x03F3
	pptTextHeader        = 0x0F9F
	pptTextChars         = 0x0FA0
	pptTextBytes         = 0x0FA8
	pptUserEdit          = 0x0FF5
	pptPersistDirectory  = 0x1772
	pptCryptSession      = 0x2F14
)

// pptRecord is a record header: its type, instance and the bounds of
// its body in the stream.
type pptRecord struct {
	typ, inst  uint16
	container  bool
	start, end int
}

func pptHeader(b []byte, pos int) (pptRecord, bool) {
	if pos < 0 || pos+8 > len(b) {
		return pptRecord{}, false
	}
	le := binary.LittleEndian
	vi := le.Uint16(b[pos:])
	r := pptRecord{typ: le.Uint16(b[pos+2:]), inst: vi >> 4, container: vi&0xF == 0xF, start: pos + 8}
	n := int(le.Uint32(b[pos+4:]))
	if n < 0 || r.start+n > len(b) {
		return pptRecord{}, false
	}
	r.end = r.start + n
	return r, true
}

// pptText is a run of text with what its header said it is.
type pptText struct {
	kind uint32 // TextHeaderAtom: 0 title, 1 body, 2 notes, 4 other, 5 center body, 6 center title, 7 half body, 8 quarter body
	text string
}

// texts collects the text atoms inside [start, end), walking containers
// without recursion (an explicit stack, bounded by the stream).
func pptTexts(b []byte, start, end int, tokens *int, max int) ([]pptText, error) {
	var out []pptText
	kind := uint32(4)
	type span struct{ pos, end int }
	stack := []span{{start, end}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.pos >= top.end {
			stack = stack[:len(stack)-1]
			continue
		}
		r, ok := pptHeader(b, top.pos)
		if !ok || r.end > top.end {
			return nil, formatErr("", "a record runs past its container", nil)
		}
		top.pos = r.end
		if *tokens++; *tokens > max {
			return nil, limitErr("", "records", int64(max))
		}
		switch {
		case r.container:
			if len(stack) >= 64 {
				return nil, limitErr("", "levels of record nesting", 64)
			}
			stack = append(stack, span{r.start, r.end})
		case r.typ == pptTextHeader && r.end-r.start >= 4:
			kind = binary.LittleEndian.Uint32(b[r.start:])
		case r.typ == pptTextChars:
			out = append(out, pptText{kind, utf16LE(b[r.start:r.end])})
		case r.typ == pptTextBytes:
			t, _ := charmap.Windows1252.NewDecoder().Bytes(b[r.start:r.end])
			out = append(out, pptText{kind, string(t)})
		}
	}
	return out, nil
}

func (pptConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	c, err := in.cfb(lim)
	if err != nil {
		return nil, err
	}
	doc, ok, err := c.stream("PowerPoint Document")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, formatErr("", "no PowerPoint Document stream", nil)
	}
	cur, ok, err := c.stream("Current User")
	if err != nil {
		return nil, err
	}
	if !ok || len(cur) < 20 {
		return nil, needsLibreOffice("a presentation of PowerPoint 95 or earlier")
	}
	persist, docRef, err := pptPersist(doc, int(binary.LittleEndian.Uint32(cur[16:])))
	if err != nil {
		return nil, err
	}
	docOff, ok := persist[docRef]
	if !ok {
		return nil, formatErr("", "the document record is missing", nil)
	}
	dr, ok := pptHeader(doc, docOff)
	if !ok || dr.typ != pptDocument {
		return nil, formatErr("", "the document record is missing", nil)
	}
	// The slides, in order, are listed by the document's first
	// SlideListWithText, with the text of their placeholders.
	type slideRef struct {
		persist uint32
		texts   []pptText
	}
	var slides []slideRef
	// Notes are referred to by the slide IDs their list gives them.
	notesByID := map[uint32]uint32{}
	tokens := 0
	for pos := dr.start; pos < dr.end; {
		r, ok := pptHeader(doc, pos)
		if !ok || r.end > dr.end {
			return nil, formatErr("", "a record runs past the document", nil)
		}
		pos = r.end
		if r.typ == pptSlideListWithText && r.inst == 2 {
			for p := r.start; p < r.end; {
				a, ok := pptHeader(doc, p)
				if !ok || a.end > r.end {
					return nil, formatErr("", "a record runs past the notes list", nil)
				}
				if a.typ == pptSlidePersist && a.end-a.start >= 16 && len(notesByID) < lim.MaxSheets {
					notesByID[binary.LittleEndian.Uint32(doc[a.start+12:])] = binary.LittleEndian.Uint32(doc[a.start:])
				}
				p = a.end
			}
			continue
		}
		if r.typ != pptSlideListWithText || r.inst != 0 {
			continue
		}
		// Each slide's atoms run from its SlidePersistAtom to the next.
		from := -1
		flush := func(to int) error {
			if from < 0 || len(slides) == 0 {
				return nil
			}
			t, err := pptTexts(doc, from, to, &tokens, lim.MaxTokens)
			slides[len(slides)-1].texts = t
			return err
		}
		for p := r.start; p < r.end; {
			a, ok := pptHeader(doc, p)
			if !ok || a.end > r.end {
				return nil, formatErr("", "a record runs past the slide list", nil)
			}
			if a.typ == pptSlidePersist && a.end-a.start >= 4 {
				if err := flush(p); err != nil {
					return nil, err
				}
				if len(slides) >= lim.MaxSheets {
					return nil, limitErr("", "slides", int64(lim.MaxSheets))
				}
				slides = append(slides, slideRef{persist: binary.LittleEndian.Uint32(doc[a.start:])})
				from = a.end
			}
			p = a.end
		}
		if err := flush(r.end); err != nil {
			return nil, err
		}
	}
	keep := keepBytes(lim)
	d := newDeck(lim)
	for _, ref := range slides {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sl := newSlide(keep)
		for _, t := range ref.texts {
			sl.pptText(t)
		}
		off, ok := persist[ref.persist]
		if r, isRec := pptHeader(doc, off); ok && isRec && r.typ == pptSlide {
			notesRef, hidden, texts, err := pptSlideBody(doc, r, &tokens, lim.MaxTokens)
			if err != nil {
				return nil, err
			}
			sl.hidden = hidden
			for _, t := range texts {
				sl.pptText(t)
			}
			if noff, ok := persist[notesByID[notesRef]]; ok && notesRef != 0 {
				if nr, ok := pptHeader(doc, noff); ok && nr.typ == pptNotes {
					nt, err := pptTexts(doc, nr.start, nr.end, &tokens, lim.MaxTokens)
					if err != nil {
						return nil, err
					}
					for _, t := range nt {
						if t.kind == 2 || t.kind == 4 || t.kind == 1 {
							for _, p := range pptParagraphs(t.text) {
								sl.notes.paragraph(0, p)
							}
						}
					}
				}
			}
		}
		d.add(sl)
	}
	return d.result("ppt", false, true), nil
}

// pptText puts a text run where its kind says: the title, or the body
// (placeholder bodies as list items).
func (sl *slide) pptText(t pptText) {
	paras := pptParagraphs(t.text)
	switch t.kind {
	case 0, 6: // title, center title
		for _, p := range paras {
			if sl.title.len() > 0 {
				sl.title.writeString(" ")
			}
			sl.title.writeString(p)
		}
	case 1, 7, 8: // body placeholders
		for _, p := range paras {
			sl.body.item(0, "-", p)
		}
	case 2: // notes on a slide: not its own
	default:
		for _, p := range paras {
			sl.body.paragraph(0, p)
		}
	}
}

// pptParagraphs splits a text run into its paragraphs (CR) and lines
// (vertical tab).
func pptParagraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\r") {
		p = strings.TrimSpace(strings.ReplaceAll(p, "\v", "\n"))
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pptSlideBody reads a slide record: its notes' persist ID, whether it
// is hidden, and the text of its shapes that the slide list does not
// hold (text boxes and tables; placeholders only refer to the list).
func pptSlideBody(b []byte, r pptRecord, tokens *int, max int) (notes uint32, hidden bool, texts []pptText, err error) {
	for pos := r.start; pos < r.end; {
		a, ok := pptHeader(b, pos)
		if !ok || a.end > r.end {
			return 0, false, nil, formatErr("", "a record runs past its slide", nil)
		}
		pos = a.end
		switch {
		case a.typ == pptSlideAtom && a.end-a.start >= 20:
			notes = binary.LittleEndian.Uint32(b[a.start+16:])
		case a.typ == pptSlideShowInfo && a.end-a.start >= 12:
			hidden = binary.LittleEndian.Uint16(b[a.start+10:])&0x4 != 0
		case a.container:
			t, err := pptTexts(b, a.start, a.end, tokens, max)
			if err != nil {
				return 0, false, nil, err
			}
			texts = append(texts, t...)
		}
	}
	return notes, hidden, texts, nil
}

// pptPersist reads the persist directory, newest edit first, from the
// user edit at offset: it maps persist IDs to record offsets. It
// returns the document's persist ID too.
func pptPersist(b []byte, offset int) (map[uint32]int, uint32, error) {
	le := binary.LittleEndian
	out := map[uint32]int{}
	var docRef uint32
	seen := map[int]bool{}
	for edits := 0; offset > 0 || edits == 0; edits++ {
		if seen[offset] || edits > 4096 {
			return nil, 0, formatErr("", "the chain of edits loops", nil)
		}
		seen[offset] = true
		r, ok := pptHeader(b, offset)
		if !ok || r.typ != pptUserEdit || r.end-r.start < 28 {
			return nil, 0, formatErr("", "no user edit record where the current user says", nil)
		}
		u := b[r.start:r.end]
		if edits == 0 {
			docRef = le.Uint32(u[16:])
		}
		if len(u) >= 32 && le.Uint32(u[28:]) != 0 {
			// An encryptSessionPersistIdRef: the presentation is encrypted.
			return nil, 0, needsLibreOffice("an encrypted presentation (LibreOffice asks for its password)")
		}
		dir, ok := pptHeader(b, int(le.Uint32(u[12:])))
		if !ok || dir.typ != pptPersistDirectory {
			return nil, 0, formatErr("", "the persist directory is missing", nil)
		}
		for p := dir.start; p+4 <= dir.end; {
			e := le.Uint32(b[p:])
			id, n := e&0xFFFFF, int(e>>20)
			p += 4
			for i := 0; i < n && p+4 <= dir.end; i++ {
				if _, newer := out[id+uint32(i)]; !newer {
					out[id+uint32(i)] = int(le.Uint32(b[p:]))
				}
				p += 4
			}
			if len(out) > 1<<20 {
				return nil, 0, limitErr("", "persist entries", 1<<20)
			}
		}
		offset = int(le.Uint32(u[8:]))
	}
	return out, docRef, nil
}
