package convert

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlWriter turns HTML into Markdown as it is tokenized: headings as #,
// paragraphs, lists (nested, numbered as ol numbers them), links as
// [text](url), emphasis, inline code and preformatted blocks, block
// quotes, tables as Markdown tables, and pictures with alt text as
// ![alt](src). Scripts, styles, the head and other content a reader does
// not see are left out; entities are decoded by the tokenizer. What it
// keeps is bounded like every converter's: a block's text by keepBytes,
// tokens by MaxTokens, nesting by MaxDepth.
//
// golang.org/x/net/html's tokenizer is used rather than its parser: the
// parser builds the whole tree, which for a page of ten megabytes is
// hundreds, and markup that needs the tree's repairs to be read rarely
// changes what the text says.
type htmlWriter struct {
	out   blockWriter
	keep  int
	title textBuf

	text      textBuf // the block being read
	level     int     // its heading level
	lists     []htmlList
	quote     int // open blockquotes
	pre       int // open pre elements
	skip      int // depth inside elements whose content is not shown
	links     []htmlLink
	table     *tableRows
	tables    int // open tables; only the outermost is kept whole
	cell      textBuf
	inCell    bool
	inTitle   bool
	space     bool // a space is pending between words
	paragraph bool // the pending text ends a paragraph
}

type htmlList struct {
	ordered bool
	n       int
	item    bool // an item of this list is open
}

type htmlLink struct {
	href string
	at   int
}

func newHTMLWriter(out blockWriter, keep int) *htmlWriter {
	w := &htmlWriter{out: out, keep: keep}
	w.text.reset(keep)
	w.title.reset(1024)
	return w
}

// htmlHidden are elements whose content a reader of the page does not
// see as text.
var htmlHidden = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Head: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Select: true,
	atom.Button: true, atom.Canvas: true, atom.Audio: true, atom.Video: true, atom.Map: true,
}

// htmlMarks are the Markdown marks of emphasis and code spans (code
// inside pre is left plain).
var htmlMarks = map[atom.Atom]string{
	atom.B: "**", atom.Strong: "**", atom.I: "*", atom.Em: "*",
	atom.Del: "~~", atom.S: "~~", atom.Strike: "~~", atom.Code: "`",
}

// htmlBlocks end the text before them and after them.
var htmlBlocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Header: true,
	atom.Footer: true, atom.Main: true, atom.Nav: true, atom.Aside: true, atom.Figure: true,
	atom.Figcaption: true, atom.Address: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Form: true, atom.Fieldset: true, atom.Legend: true, atom.Details: true, atom.Summary: true,
	atom.Center: true, atom.Body: true, atom.Html: true, atom.Caption: true,
}

// write reads the HTML of r.
func (w *htmlWriter) write(ctx context.Context, r io.Reader, lim Limits) error {
	z := html.NewTokenizer(newHTMLRuns(r))
	z.SetMaxBuf(maxTokenBytes)
	depth := 0
	for tokens := 0; ; tokens++ {
		if tokens > lim.MaxTokens {
			return limitErr("", "HTML tokens", int64(lim.MaxTokens))
		}
		if tokens&0xFFFF == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// A chapter of an e-book ends early once reading stopped
			// past the cap (errStopped), as a page ends at its end.
			if err := z.Err(); err != io.EOF && err != errStopped {
				if err == html.ErrBufferExceeded {
					return limitErr("", "bytes in one HTML token", maxTokenBytes)
				}
				return formatErr("", "unreadable HTML", err)
			}
			w.flush()
			w.endTable()
			return nil
		case html.TextToken:
			w.chars(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var attrs map[string]string
			if hasAttr && (a == atom.A || a == atom.Img || a == atom.Ol) {
				attrs = map[string]string{}
				for {
					k, v, more := z.TagAttr()
					if len(attrs) < 64 {
						attrs[string(k)] = string(v)
					}
					if !more {
						break
					}
				}
			}
			if depth++; depth > lim.MaxDepth*64 {
				// Unclosed elements are common in HTML; only absurd
				// nesting is refused.
				return limitErr("", "levels of HTML nesting", int64(lim.MaxDepth*64))
			}
			self := tt == html.SelfClosingTagToken || htmlVoid(a)
			if self {
				depth--
			}
			w.start(a, attrs, self)
		case html.EndTagToken:
			name, _ := z.TagName()
			depth = max(depth-1, 0)
			w.end(atom.Lookup(name))
		}
	}
}

// dropped reports whether the block, cell or table being read has
// dropped text, which the cap would not have shown.
func (w *htmlWriter) dropped() bool {
	return w.text.lost > 0 || w.inCell && w.cell.lost > 0 || w.table != nil && w.table.measuring
}

// htmlVoid reports elements that have no end tag.
func htmlVoid(a atom.Atom) bool {
	switch a {
	case atom.Br, atom.Img, atom.Hr, atom.Input, atom.Meta, atom.Link, atom.Area, atom.Base, atom.Col, atom.Embed, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// chars adds text: whitespace collapsed, except in pre.
func (w *htmlWriter) chars(b []byte) {
	if w.inTitle {
		w.title.write(b)
		return
	}
	if w.skip > 0 {
		return
	}
	t := w.target()
	if w.pre > 0 {
		t.write(b)
		return
	}
	for len(b) > 0 {
		i := bytes.IndexAny(b, " \t\n\r\f")
		if i < 0 {
			i = len(b)
		}
		if i > 0 {
			if w.space && t.len() > 0 {
				t.writeString(" ")
			}
			t.write(b[:i])
			w.space = false
		}
		if i < len(b) {
			w.space = true
			i++
		}
		b = b[i:]
	}
}

// target is where text goes: the open table cell, or the block.
func (w *htmlWriter) target() *textBuf {
	if w.inCell {
		return &w.cell
	}
	return &w.text
}

func (w *htmlWriter) start(a atom.Atom, attrs map[string]string, self bool) {
	if a == atom.Title {
		w.inTitle = !self
		return
	}
	if htmlHidden[a] {
		if !self {
			w.skip++
		}
		return
	}
	if w.skip > 0 {
		return
	}
	t := w.target()
	switch {
	case htmlHeading(a) > 0:
		w.flush()
		w.level = htmlHeading(a)
	case htmlBlocks[a], a == atom.Blockquote:
		if a == atom.Blockquote {
			w.flush()
			w.quote++
		}
		w.breakBlock()
	case a == atom.Br:
		t.writeString("\n")
		w.space = false
	case a == atom.Hr:
		w.flush()
		w.out.paragraph(0, "---")
	case a == atom.Pre:
		w.flush()
		w.pre++
	case a == atom.Ul, a == atom.Ol:
		w.breakBlock()
		l := htmlList{ordered: a == atom.Ol}
		if n, err := strconv.Atoi(attrs["start"]); err == nil && n > 0 {
			l.n = n - 1
		}
		if len(w.lists) < 64 {
			w.lists = append(w.lists, l)
		}
	case a == atom.Li:
		w.flush()
		if n := len(w.lists); n > 0 {
			w.lists[n-1].n++
			w.lists[n-1].item = true
		}
	case a == atom.A:
		if href := strings.TrimSpace(attrs["href"]); href != "" && len(w.links) < 64 {
			w.links = append(w.links, htmlLink{href: href, at: t.len()})
		} else if len(w.links) < 64 {
			w.links = append(w.links, htmlLink{at: -1})
		}
	case htmlMarks[a] != "" && (a != atom.Code || w.pre == 0):
		w.mark(t, htmlMarks[a])
	case a == atom.Img:
		if alt := strings.Join(strings.Fields(attrs["alt"]), " "); alt != "" {
			if w.space && t.len() > 0 {
				t.writeString(" ")
			}
			t.writeString(image(alt, attrs["src"]))
			w.space = false
		}
	case a == atom.Table:
		if w.tables++; w.tables == 1 {
			w.flush()
			w.table = newTableRows(w.keep)
		}
	case a == atom.Tr && w.tables == 1:
		w.endCell()
		w.table.startRow()
	case (a == atom.Td || a == atom.Th) && w.tables == 1:
		w.endCell()
		w.cell.reset(w.keep)
		w.inCell, w.space = true, false
	}
}

// mark opens an emphasis or code span.
func (w *htmlWriter) mark(t *textBuf, m string) {
	if w.space && t.len() > 0 {
		t.writeString(" ")
		w.space = false
	}
	t.writeString(m)
}

// closeMark closes an emphasis or code span, or drops an empty one.
func (w *htmlWriter) closeMark(t *textBuf, m string) {
	if t.lost > 0 {
		return
	}
	if bytes.HasSuffix(t.b, []byte(m)) {
		t.b = t.b[:len(t.b)-len(m)]
		return
	}
	t.b = bytes.TrimRight(t.b, " ")
	t.writeString(m)
}

func htmlHeading(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

func (w *htmlWriter) end(a atom.Atom) {
	if a == atom.Title {
		w.inTitle = false
		return
	}
	if htmlHidden[a] {
		w.skip = max(w.skip-1, 0)
		return
	}
	if w.skip > 0 {
		return
	}
	t := w.target()
	switch {
	case htmlHeading(a) > 0, htmlBlocks[a]:
		w.breakBlock()
	case a == atom.Blockquote:
		w.flush()
		w.quote = max(w.quote-1, 0)
	case a == atom.Pre:
		if w.pre > 0 {
			code := strings.Trim(string(w.text.b), "\n")
			lost := w.text.lost
			w.text.reset(w.keep)
			w.pre--
			if strings.TrimSpace(code) != "" {
				w.out.paragraph(0, "```\n"+code+"\n```")
				w.out.lost(lost)
			}
		}
	case a == atom.Ul, a == atom.Ol:
		w.flush()
		if n := len(w.lists); n > 0 {
			w.lists = w.lists[:n-1]
		}
	case a == atom.Li:
		w.flush()
	case a == atom.A:
		if n := len(w.links); n > 0 {
			l := w.links[n-1]
			w.links = w.links[:n-1]
			if l.at >= 0 && l.at <= t.len() && t.lost == 0 && !strings.HasPrefix(strings.ToLower(l.href), "javascript:") && !strings.HasPrefix(l.href, "#") {
				inner := strings.TrimSpace(string(t.b[l.at:]))
				if inner != "" {
					lead := ""
					if l.at < t.len() && t.b[l.at] == ' ' {
						lead = " "
					}
					t.b = t.b[:l.at]
					t.writeString(lead + "[" + inner + "](" + l.href + ")")
				}
			}
		}
	case htmlMarks[a] != "" && (a != atom.Code || w.pre == 0):
		w.closeMark(t, htmlMarks[a])
	case (a == atom.Td || a == atom.Th) && w.tables == 1:
		w.endCell()
	case a == atom.Tr && w.tables == 1:
		w.endCell()
		w.table.endRow()
	case a == atom.Table:
		if w.tables == 1 {
			w.endCell()
			w.endTable()
		}
		w.tables = max(w.tables-1, 0)
	}
}

// endCell ends the open table cell, if any.
func (w *htmlWriter) endCell() {
	if w.inCell {
		w.table.cell(strings.TrimSpace(string(w.cell.b)), w.cell.lost)
		w.inCell = false
	}
}

// endTable writes the table being read.
func (w *htmlWriter) endTable() {
	if w.table == nil {
		return
	}
	w.endCell()
	t := w.table
	w.table, w.tables = nil, 0
	w.out.table(t)
}

// breakBlock ends the text before a block boundary.
func (w *htmlWriter) breakBlock() {
	if w.inCell {
		if w.cell.len() > 0 {
			w.cell.writeString("\n")
		}
		w.space = false
		return
	}
	w.flush()
}

// flush writes the text read so far as a heading, list item or
// paragraph.
func (w *htmlWriter) flush() {
	if w.pre > 0 || w.inCell {
		return
	}
	text := strings.TrimSpace(string(w.text.b))
	lost := w.text.lost
	level := w.level
	w.text.reset(w.keep)
	w.level, w.space = 0, false
	if text == "" {
		// What was dropped after blank text is still left out.
		w.out.lost(lost)
		return
	}
	if w.quote > 0 {
		text = strings.Repeat("> ", min(w.quote, 8)) + strings.ReplaceAll(text, "\n", "\n"+strings.Repeat("> ", min(w.quote, 8)))
	}
	switch n := len(w.lists); {
	case level > 0:
		w.out.paragraph(level, text)
	case n > 0 && w.lists[n-1].item:
		l := &w.lists[n-1]
		marker := "-"
		if l.ordered {
			marker = strconv.Itoa(l.n) + "."
		}
		l.item = false
		w.out.item(n-1, marker, text)
	case n > 0:
		w.out.item(n-1, "", text)
	default:
		w.out.paragraph(0, text)
	}
	w.out.lost(lost)
}

// htmlMarkdown turns an HTML string into Markdown of at most MaxChars
// characters, for the HTML bodies of e-mail: their text follows the
// message's headers in the same sink.
func htmlMarkdown(ctx context.Context, src string, lim Limits) (string, error) {
	s := newSink(lim.MaxChars, "paragraphs")
	w := newHTMLWriter(&blocks{sink: s}, keepBytes(lim))
	if err := w.write(ctx, strings.NewReader(src), lim); err != nil {
		return "", err
	}
	return s.text(), nil
}
