package convert

import (
	"strings"
	"unicode/utf8"
)

// blocks writes a document's blocks as Markdown through a sink, one unit
// per paragraph, list item or table row: blocks of different kinds and
// paragraphs are separated by a blank line, list items and table rows
// are not. The separator is written with the block that follows it, so a
// cut never leaves a dangling blank line.
type blocks struct {
	sink       *sink
	last       blockKind
	paragraphs int
	tables     int
	newBlock   bool // the next unit starts a new block of the same kind
	lastKept   bool // the last unit was written, not only counted
}

type blockKind uint8

const (
	blockNone blockKind = iota
	blockParagraph
	blockItem
	blockRow
)

func (bw *blocks) write(kind blockKind, text string) {
	sep := ""
	if bw.last != blockNone && (kind != bw.last || kind == blockParagraph || bw.newBlock) {
		sep = "\n"
	}
	bw.last, bw.newBlock = kind, false
	if kind != blockRow {
		bw.paragraphs++
	}
	if bw.sink.full {
		// Past the cap: counted without building the line.
		bw.sink.skip(len(sep)+utf8.RuneCountInString(text)+1, 1)
		bw.lastKept = false
		return
	}
	bw.sink.unit(sep + text + "\n")
	bw.lastKept = !bw.sink.full
}

// lost counts n characters of the block just written that its reader
// left out unread (see [textBuf]): the block is then cut, and nothing
// after it is written.
func (bw *blocks) lost(n int) {
	if n > 0 {
		bw.sink.skip(n, b2i(bw.lastKept))
		bw.lastKept = false
	}
}

// paragraph writes a paragraph or heading (level 1–6; 0 for none).
func (bw *blocks) paragraph(level int, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if level > 0 && !bw.sink.full {
		text = strings.Repeat("#", min(level, 6)) + " " + strings.ReplaceAll(text, "\n", " ")
	} else if level > 0 {
		bw.sink.skip(min(level, 6)+1, 0) // the marker, counted alone
	}
	bw.write(blockParagraph, text)
}

// item writes a list item at a nesting level, with its marker ("-" or
// "3."); an empty marker continues the item above with another
// paragraph.
func (bw *blocks) item(level int, marker, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	indent := strings.Repeat("  ", level)
	if marker == "" {
		marker = " "
	}
	bw.write(blockItem, indent+marker+" "+strings.ReplaceAll(text, "\n", "\n"+indent+"  "))
}

// table writes rows as a Markdown table, the first row as its header;
// rows are padded to the widest. The rows t measured but did not keep
// are counted as left out.
func (bw *blocks) table(t *tableRows) {
	rows, width := t.rows, t.width
	if width == 0 {
		return
	}
	bw.tables++
	bw.newBlock = true
	var b strings.Builder
	for i, r := range rows {
		if bw.sink.full {
			// Only counted: in one step for the padding, so that a wide
			// table of many short rows costs its cells, not rows × width.
			chars := 1 + 3*width + 1
			for _, c := range r {
				chars += utf8.RuneCountInString(tableCell(c))
			}
			if i == 0 {
				chars += 1 + 6*width
			}
			bw.sink.skip(chars, 1)
			bw.last = blockRow
			continue
		}
		b.Reset()
		b.WriteByte('|')
		for c := 0; c < width; c++ {
			cell := ""
			if c < len(r) {
				cell = tableCell(r[c])
			}
			b.WriteString(" " + cell + " |")
		}
		if i == 0 {
			b.WriteString("\n|" + strings.Repeat(" --- |", width))
		}
		bw.write(blockRow, b.String())
	}
	if t.moreRows > 0 || t.lostChars > 0 {
		chars := t.moreRows*(2+3*width) + t.moreChars + t.lostChars
		if len(rows) == 0 {
			chars += 1 + 6*width // the header's line
		}
		bw.sink.skip(chars, t.moreRows)
		bw.last = blockRow
	}
}

// tableCell makes text fit a Markdown table cell: pipes escaped, line
// ends as <br>.
func tableCell(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", "<br>")
}

// tableCellLen is the length in characters of tableCell(s).
func tableCellLen(s string) int {
	s = strings.TrimSpace(s)
	return utf8.RuneCountInString(s) + strings.Count(s, "|") + 3*strings.Count(s, "\n")
}

// describeDocument describes a document by its paragraphs and tables.
func (bw *blocks) describe() string {
	d := plural(bw.paragraphs, "paragraph")
	if bw.tables > 0 {
		d += ", " + plural(bw.tables, "table")
	}
	return d
}

// blockWriter is what writes blocks: [blocks] itself, or a
// [blockRecorder] that keeps them to be written later (a slide's text,
// whose title may come last).
type blockWriter interface {
	paragraph(level int, text string)
	item(level int, marker, text string)
	table(t *tableRows)
	lost(n int)
}

// blockRecorder keeps the blocks written to it, to replay them, up to
// max characters as they are written: past that, blocks are only
// counted, as a full sink counts them, and the count is added when they
// are replayed. A slide's text cannot be shown past the cap either.
type blockRecorder struct {
	calls []recordedBlock
	max   int
	kept  int
	over  *blocks // counts what is not kept
}

type recordedBlock struct {
	kind         blockKind
	level        int
	marker, text string
	table        *tableRows
	lost         int
}

// shownLen is at most the characters a paragraph of text takes once
// written: its trimmed text and extra for its marker and line end, none
// when it is empty and not written. Counting no more than is written
// keeps a recorder's "no longer kept" a sure sign that the text is cut.
func shownLen(text string, extra int) int {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0
	}
	return utf8.RuneCountInString(t) + extra
}

// newRecorder returns a recorder keeping what keep bytes of text (see
// keepBytes) can show: keep/4 characters, more than the cap.
func newRecorder(keep int) *blockRecorder { return &blockRecorder{max: keep / 4} }

// counter returns the blocks that count what is no longer kept, or nil
// while blocks are still kept.
func (r *blockRecorder) counter(n int) *blocks {
	if r.over == nil && r.kept+n > r.max {
		last := blockNone
		if len(r.calls) > 0 {
			last = r.calls[len(r.calls)-1].kind
		}
		r.over = &blocks{sink: &sink{full: true}, last: last}
	}
	r.kept += n
	return r.over
}

func (r *blockRecorder) paragraph(level int, text string) {
	if c := r.counter(shownLen(text, 1)); c != nil {
		c.paragraph(level, text)
		return
	}
	r.calls = append(r.calls, recordedBlock{kind: blockParagraph, level: level, text: text})
}

func (r *blockRecorder) item(level int, marker, text string) {
	if c := r.counter(shownLen(text, 3)); c != nil {
		c.item(level, marker, text)
		return
	}
	r.calls = append(r.calls, recordedBlock{kind: blockItem, level: level, marker: marker, text: text})
}

func (r *blockRecorder) table(t *tableRows) {
	if c := r.counter(t.kept); c != nil {
		c.table(t)
		return
	}
	r.calls = append(r.calls, recordedBlock{kind: blockRow, table: t})
}

func (r *blockRecorder) lost(n int) {
	switch {
	case r.over != nil:
		r.over.lost(n)
	case len(r.calls) > 0:
		r.calls[len(r.calls)-1].lost += n
	}
}

// texts returns the text of the recorded paragraphs and items.
func (r *blockRecorder) texts() []string {
	var out []string
	for _, c := range r.calls {
		if c.kind != blockRow {
			out = append(out, c.text)
		}
	}
	return out
}

func (r *blockRecorder) replay(w *blocks) {
	r.writeTo(w)
	if r.over != nil && r.over.sink.omit.Chars > 0 {
		w.sink.skip(r.over.sink.omit.Chars, r.over.sink.omit.Units)
		w.paragraphs += r.over.paragraphs
		w.tables += r.over.tables
	}
}

// appendRecorded adds the blocks of src to r, as if written to it.
func (r *blockRecorder) appendRecorded(src *blockRecorder) {
	src.writeTo(r)
	if src.over != nil && src.over.sink.omit.Chars > 0 {
		r.counter(r.max + 1)
		r.over.sink.skip(src.over.sink.omit.Chars, src.over.sink.omit.Units)
		r.over.paragraphs += src.over.paragraphs
		r.over.tables += src.over.tables
	}
}

// writeTo writes the kept blocks to w, in the order they were recorded.
func (r *blockRecorder) writeTo(w blockWriter) {
	for _, c := range r.calls {
		switch c.kind {
		case blockParagraph:
			w.paragraph(c.level, c.text)
		case blockItem:
			w.item(c.level, c.marker, c.text)
		case blockRow:
			w.table(c.table)
		}
		w.lost(c.lost)
	}
}
