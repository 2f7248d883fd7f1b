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
		return
	}
	bw.sink.unit(sep + text + "\n")
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
// rows are padded to the widest.
func (bw *blocks) table(rows [][]string) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
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
}

// tableCell makes text fit a Markdown table cell: pipes escaped, line
// ends as <br>.
func tableCell(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", "<br>")
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
	table(rows [][]string)
}

// blockRecorder keeps the blocks written to it, to replay them.
type blockRecorder struct {
	calls []recordedBlock
}

type recordedBlock struct {
	kind         blockKind
	level        int
	marker, text string
	rows         [][]string
}

func (r *blockRecorder) paragraph(level int, text string) {
	r.calls = append(r.calls, recordedBlock{kind: blockParagraph, level: level, text: text})
}

func (r *blockRecorder) item(level int, marker, text string) {
	r.calls = append(r.calls, recordedBlock{kind: blockItem, level: level, marker: marker, text: text})
}

func (r *blockRecorder) table(rows [][]string) {
	r.calls = append(r.calls, recordedBlock{kind: blockRow, rows: rows})
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

func (r *blockRecorder) replay(w blockWriter) {
	for _, c := range r.calls {
		switch c.kind {
		case blockParagraph:
			w.paragraph(c.level, c.text)
		case blockItem:
			w.item(c.level, c.marker, c.text)
		case blockRow:
			w.table(c.rows)
		}
	}
}
