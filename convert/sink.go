package convert

import (
	"strings"
	"unicode/utf8"
)

// sink collects a conversion's text up to a cap of characters. Text comes
// in units (a row, a paragraph, a line) that are kept whole or left out
// whole, so that the text is cut on a boundary; once one unit is left
// out, everything after it is only counted, so the text stays a prefix of
// the whole. Headings and other lines that are not units count as
// characters only.
type sink struct {
	max   int
	b     strings.Builder
	chars int
	units int
	full  bool
	omit  Omission
}

func newSink(max int, unit string) *sink {
	return &sink{max: max, omit: Omission{Unit: unit}}
}

// unit adds one unit of text, its line end included.
func (s *sink) unit(text string) { s.add(text, true) }

// extra adds text that is not a unit, such as a heading.
func (s *sink) extra(text string) { s.add(text, false) }

func (s *sink) add(text string, isUnit bool) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if s.full {
		s.skip(utf8.RuneCountInString(text), b2i(isUnit))
		return
	}
	n := utf8.RuneCountInString(text)
	if s.chars+n <= s.max {
		s.b.WriteString(text)
		s.chars += n
		s.units += b2i(isUnit)
		return
	}
	s.full = true
	if isUnit && s.units == 0 {
		// A first unit longer than the whole cap (a minified JSON file, a
		// paragraph of a megabyte) is cut inside, so the text is not empty.
		kept := cutRunes(text, s.max-s.chars)
		s.b.WriteString(kept)
		k := utf8.RuneCountInString(kept)
		s.chars += k
		s.skip(n-k, 1)
		return
	}
	s.skip(n, b2i(isUnit))
}

// skip counts text left out without seeing it: chars characters in units
// units. Callers use it once the sink is full, to count what they no
// longer render.
func (s *sink) skip(chars, units int) {
	s.full = true
	s.omit.Chars += chars
	s.omit.Units += units
}

// room reports how many more characters fit; 0 once full.
func (s *sink) room() int {
	if s.full {
		return 0
	}
	return s.max - s.chars
}

func (s *sink) text() string { return s.b.String() }

// omitted is what the sink left out; stopped says whether reading
// stopped past the cap (see [pkg.stopped]), which makes its counts lower
// bounds.
func (s *sink) omitted(stopped bool) Omission {
	o := s.omit
	o.AtLeast = stopped && o.Any()
	return o
}

// atLeast marks a description counted from what was read (paragraphs,
// tables) as a lower bound when reading stopped past the cap.
func atLeast(stopped bool, desc string) string {
	if stopped {
		return "at least " + desc
	}
	return desc
}

// cutRunes returns the longest prefix of text of at most n runes, ending
// after a space or line end when one is near the end.
func cutRunes(text string, n int) string {
	i, count := 0, 0
	for i < len(text) && count < n {
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
		count++
	}
	cut := text[:i]
	if j := strings.LastIndexAny(cut, " \n\t"); j >= 0 && j >= len(cut)-len(cut)/10 {
		cut = cut[:j+1]
	}
	return cut
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
