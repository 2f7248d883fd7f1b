package convert

import (
	"context"
	"encoding/binary"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// DOC returns the converter of Word 97–2003 documents (.doc, .dot) to
// Markdown, by the same rules as [DOCX]: headings (the built-in heading
// styles and outline levels), list items, tables, field results (not
// their codes), footnotes and endnotes as notes after the text, and
// comments when asked for ([Options].Comments). The text is read
// through the document's piece table, paragraph properties from its
// formatted disk pages. Documents of Word 6 and 95, and encrypted ones,
// are refused with a [*FormatError] saying LibreOffice reads them.
func DOC() Converter { return docConverter{} }

type docConverter struct{}

func (docConverter) Format() Format {
	return Format{
		Kind:       "doc",
		MediaTypes: []string{"application/msword", "application/doc", "application/x-msword", "application/vnd.ms-word"},
		Extensions: []string{".doc", ".dot"},
		Sniff:      func(in *Input, lim Limits) bool { return cfbHas(in, lim, "WordDocument") },
	}
}

// docPiece is a run of the document's characters stored together: CPs
// [cp, cp+n) at byte fc of the WordDocument stream, 8-bit (cp1252) or
// UTF-16.
type docPiece struct {
	cp, n      int
	fc         int
	compressed bool
}

// docRun is a run of characters [fcStart, fcEnd) left out: hidden
// (sprmCFVanish) or deleted by a tracked change (sprmCFRMarkDel).
type docRun struct {
	fcStart, fcEnd int
}

// docPara is what a paragraph's properties say.
type docPara struct {
	fcStart, fcEnd int
	istd           int
	inTable, ttp   bool
	ilfo, ilvl     int
	outline        int // outline level + 1; 0 for body text
}

type docFile struct {
	word, table []byte
	pieces      []docPiece
	paras       []docPara // by FC, sorted
	hidden      []docRun  // runs of hidden or deleted text, by FC, sorted
	footRefs    map[int]bool
	endRefs     map[int]bool
	lists       map[int][]bool
	ccp         [7]int // text, footnotes, headers, comments, endnotes, text boxes, header text boxes
}

func (docConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	c, err := in.cfb(lim)
	if err != nil {
		return nil, err
	}
	word, ok, err := c.stream("WordDocument")
	if err != nil {
		return nil, err
	}
	if !ok || len(word) < 0x22 {
		return nil, formatErr("", "no WordDocument stream", nil)
	}
	le := binary.LittleEndian
	if le.Uint16(word) != 0xA5EC {
		return nil, formatErr("", "the WordDocument stream does not start as Word's does", nil)
	}
	if nFib := le.Uint16(word[2:]); nFib < 0x00C1 {
		return nil, needsLibreOffice("a Word 6 or Word 95 document")
	}
	flags := le.Uint16(word[0x0A:])
	if flags&0x0100 != 0 {
		return nil, needsLibreOffice("an encrypted Word document (LibreOffice asks for its password)")
	}
	tableName := "0Table"
	if flags&0x0200 != 0 {
		tableName = "1Table"
	}
	table, ok, err := c.stream(tableName)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, formatErr("", "no "+tableName+" stream", nil)
	}
	d := &docFile{word: word, table: table}
	fcLcb, err := d.readFIB()
	if err != nil {
		return nil, err
	}
	if err := d.readPieces(fcLcb(33)); err != nil {
		return nil, err
	}
	d.readParas(fcLcb(13))
	d.readHidden(fcLcb(12))
	d.footRefs = d.refCPs(fcLcb(2))
	d.endRefs = d.refCPs(fcLcb(46))
	lstFC, lstLcb := fcLcb(73)
	lfoFC, lfoLcb := fcLcb(74)
	d.readLists(lstFC, lstLcb, lfoFC, lfoLcb)
	w := &docWriter{d: d, sink: newSink(lim.MaxChars, "paragraphs"), keep: keepBytes(lim), comments: in.opts.Comments}
	w.out = &blocks{sink: w.sink}
	return w.write(ctx)
}

// readFIB reads the character counts of the document's parts and
// returns a lookup of the FibRgFcLcb pairs (offset and size in the table
// stream) by index.
func (d *docFile) readFIB() (func(int) (int, int), error) {
	le := binary.LittleEndian
	w := d.word
	pos := 32
	csw := int(le.Uint16(w[pos:]))
	pos += 2 + 2*csw
	if pos+2 > len(w) {
		return nil, formatErr("", "truncated file information block", nil)
	}
	cslw := int(le.Uint16(w[pos:]))
	pos += 2
	if pos+4*cslw+2 > len(w) || cslw < 11 {
		return nil, formatErr("", "truncated file information block", nil)
	}
	lw := w[pos : pos+4*cslw]
	for i, idx := range []int{3, 4, 5, 7, 8, 9, 10} {
		d.ccp[i] = max(int(int32(le.Uint32(lw[4*idx:]))), 0)
	}
	pos += 4 * cslw
	n := int(le.Uint16(w[pos:]))
	pos += 2
	blob := w[pos:min(pos+8*n, len(w))]
	return func(i int) (int, int) {
		if 8*i+8 > len(blob) {
			return 0, 0
		}
		return int(le.Uint32(blob[8*i:])), int(le.Uint32(blob[8*i+4:]))
	}, nil
}

// readPieces reads the piece table from the Clx in the table stream.
func (d *docFile) readPieces(fc, lcb int) error {
	le := binary.LittleEndian
	if fc < 0 || lcb <= 0 || fc+lcb > len(d.table) {
		return formatErr("", "the piece table lies outside the table stream", nil)
	}
	clx := d.table[fc : fc+lcb]
	for len(clx) > 0 && clx[0] == 1 { // Prc: property modifiers, skipped
		if len(clx) < 3 {
			return formatErr("", "truncated piece table", nil)
		}
		n := int(int16(le.Uint16(clx[1:])))
		if n < 0 || 3+n > len(clx) {
			return formatErr("", "truncated piece table", nil)
		}
		clx = clx[3+n:]
	}
	if len(clx) < 5 || clx[0] != 2 {
		return formatErr("", "no piece table", nil)
	}
	size := int(le.Uint32(clx[1:]))
	plc := clx[5:]
	if size > len(plc) || size < 4 {
		return formatErr("", "truncated piece table", nil)
	}
	plc = plc[:size]
	n := (size - 4) / 12
	total := len(d.word)
	for i := 0; i < n; i++ {
		cp0, cp1 := int(le.Uint32(plc[4*i:])), int(le.Uint32(plc[4*i+4:]))
		pcd := plc[4*(n+1)+8*i:]
		raw := le.Uint32(pcd[2:])
		p := docPiece{cp: cp0, n: cp1 - cp0, compressed: raw&0x40000000 != 0}
		p.fc = int(raw & 0x3FFFFFFF)
		if p.compressed {
			p.fc /= 2
		}
		width := 2
		if p.compressed {
			width = 1
		}
		if p.n < 0 || p.fc+p.n*width > total {
			return formatErr("", "a piece of text lies outside the document", nil)
		}
		d.pieces = append(d.pieces, p)
	}
	return nil
}

// readParas reads the paragraph properties the document's formatted
// disk pages hold, as runs of FCs.
func (d *docFile) readParas(fc, lcb int) {
	le := binary.LittleEndian
	if fc < 0 || lcb < 12 || fc+lcb > len(d.table) {
		return
	}
	plc := d.table[fc : fc+lcb]
	n := (lcb - 4) / 8
	for i := 0; i < n && len(d.paras) < 1<<20; i++ {
		pn := int(le.Uint32(plc[4*(n+1)+4*i:]) & 0x3FFFFF)
		off := pn * 512
		if off+512 > len(d.word) {
			continue
		}
		page := d.word[off : off+512]
		crun := int(page[511])
		if 4*(crun+1)+13*crun > 511 {
			continue
		}
		for j := 0; j < crun; j++ {
			p := docPara{fcStart: int(le.Uint32(page[4*j:])), fcEnd: int(le.Uint32(page[4*j+4:]))}
			bx := int(page[4*(crun+1)+13*j]) * 2
			if bx > 0 && bx < 511 {
				cb := int(page[bx])
				start, size := bx+1, 2*cb-1
				if cb == 0 && bx+1 < 511 {
					start, size = bx+2, 2*int(page[bx+1])
				}
				if start+size <= 511 && size >= 2 {
					p.parse(page[start : start+size])
				}
			}
			d.paras = append(d.paras, p)
		}
	}
	sort.SliceStable(d.paras, func(i, j int) bool { return d.paras[i].fcStart < d.paras[j].fcStart })
}

// parse reads a paragraph's style and the sprms it cares about.
func (p *docPara) parse(b []byte) {
	le := binary.LittleEndian
	p.istd = int(le.Uint16(b))
	for i := 2; i+2 <= len(b); {
		sprm := le.Uint16(b[i:])
		i += 2
		size := sprmSize(sprm, b[i:])
		if size < 0 {
			return
		}
		if i+size > len(b) {
			return
		}
		op := b[i : i+size]
		switch sprm {
		case 0x2416: // sprmPFInTable
			p.inTable = op[0] != 0
		case 0x2417: // sprmPFTtp
			p.ttp = op[0] != 0
		case 0x6649: // sprmPItap
			p.inTable = p.inTable || le.Uint32(op) > 0
		case 0x260A: // sprmPIlvl
			p.ilvl = int(op[0])
		case 0x460B: // sprmPIlfo
			p.ilfo = int(int16(le.Uint16(op)))
		case 0x2640: // sprmPOutLvl
			if op[0] < 9 {
				p.outline = int(op[0]) + 1
			}
		}
		i += size
	}
}

// readHidden reads the character runs whose properties hide their
// text or mark it deleted, from the character formatted disk pages.
func (d *docFile) readHidden(fc, lcb int) {
	le := binary.LittleEndian
	if fc < 0 || lcb < 12 || fc+lcb > len(d.table) {
		return
	}
	plc := d.table[fc : fc+lcb]
	n := (lcb - 4) / 8
	for i := 0; i < n && len(d.hidden) < 1<<20; i++ {
		off := int(le.Uint32(plc[4*(n+1)+4*i:])&0x3FFFFF) * 512
		if off+512 > len(d.word) {
			continue
		}
		page := d.word[off : off+512]
		crun := int(page[511])
		if 5*crun+4 > 511 {
			continue
		}
		for j := 0; j < crun; j++ {
			at := int(page[4*(crun+1)+j]) * 2
			if at == 0 || at >= 511 {
				continue
			}
			cb := int(page[at])
			if at+1+cb > 511 || !hidesText(page[at+1:at+1+cb]) {
				continue
			}
			d.hidden = append(d.hidden, docRun{int(le.Uint32(page[4*j:])), int(le.Uint32(page[4*j+4:]))})
		}
	}
	sort.Slice(d.hidden, func(i, j int) bool { return d.hidden[i].fcStart < d.hidden[j].fcStart })
}

// hidesText reports whether character properties hide their text or
// mark it deleted.
func hidesText(grpprl []byte) bool {
	hide := false
	for i := 0; i+2 < len(grpprl); {
		sprm := binary.LittleEndian.Uint16(grpprl[i:])
		i += 2
		switch sprm {
		case 0x083C, 0x0800: // sprmCFVanish, sprmCFRMarkDel
			hide = grpprl[i]&1 != 0 || hide
		}
		size := sprmSize(sprm, grpprl[i:])
		if size < 0 {
			break
		}
		i += size
	}
	return hide
}

// sprmSize is the size of a property's operand that starts op; -1 when
// op is too short to say.
func sprmSize(sprm uint16, op []byte) int {
	switch sprm >> 13 {
	case 0, 1:
		return 1
	case 2, 4, 5:
		return 2
	case 3:
		return 4
	case 7:
		return 3
	}
	if sprm == 0xD608 || sprm == 0xC615 {
		if len(op) < 2 {
			return -1
		}
		return int(binary.LittleEndian.Uint16(op)) + 2
	}
	if len(op) < 1 {
		return -1
	}
	return int(op[0]) + 1
}

// hiddenAt reports whether the character at byte fc is left out.
func (d *docFile) hiddenAt(fc int) bool {
	i := sort.Search(len(d.hidden), func(i int) bool { return d.hidden[i].fcEnd > fc })
	return i < len(d.hidden) && d.hidden[i].fcStart <= fc
}

// refCPs reads a PLC of note references: the CPs of their marks.
func (d *docFile) refCPs(fc, lcb int) map[int]bool {
	out := map[int]bool{}
	if fc < 0 || lcb < 4 || fc+lcb > len(d.table) {
		return out
	}
	n := (lcb - 4) / 6
	for i := 0; i < n && i < 1<<16; i++ {
		out[int(binary.LittleEndian.Uint32(d.table[fc+4*i:]))] = true
	}
	return out
}

// readLists reads which list levels are numbered, by list (ilfo, from
// 1): the lists (PlfLst) and the list formats that refer to them
// (PlfLfo).
func (d *docFile) readLists(lstFC, lstLcb, lfoFC, lfoLcb int) {
	le := binary.LittleEndian
	d.lists = map[int][]bool{}
	if lstFC <= 0 || lstLcb < 2 || lstFC+lstLcb > len(d.table) || lfoFC <= 0 || lfoLcb < 4 || lfoFC+lfoLcb > len(d.table) {
		return
	}
	// The list levels follow the lists, past the size the FIB gives.
	b := d.table[lstFC:]
	n := int(int16(le.Uint16(b)))
	if n <= 0 || 2+28*n > lstLcb {
		return
	}
	ordered := map[int32][]bool{}
	type lst struct {
		id     int32
		levels int
	}
	var lsts []lst
	for i := 0; i < n; i++ {
		f := b[2+28*i:]
		levels := 9
		if f[26]&1 != 0 {
			levels = 1
		}
		lsts = append(lsts, lst{int32(le.Uint32(f)), levels})
	}
	pos := 2 + 28*n
	for _, l := range lsts {
		for k := 0; k < l.levels; k++ {
			if pos+28 > len(b) {
				return
			}
			nfc := b[pos+4]
			cbChpx, cbPapx := int(b[pos+24]), int(b[pos+25])
			ordered[l.id] = append(ordered[l.id], nfc != 0x17 && nfc != 0xFF)
			pos += 28 + cbPapx + cbChpx
			if pos+2 > len(b) {
				return
			}
			pos += 2 + 2*int(le.Uint16(b[pos:]))
		}
	}
	lfo := d.table[lfoFC : lfoFC+lfoLcb]
	m := int(int32(le.Uint32(lfo)))
	for i := 0; i < m && 4+16*i+16 <= len(lfo); i++ {
		d.lists[i+1] = ordered[int32(le.Uint32(lfo[4+16*i:]))]
	}
}

// paraAt returns the properties of the paragraph holding the character
// at byte fc.
func (d *docFile) paraAt(fc int) docPara {
	i := sort.Search(len(d.paras), func(i int) bool { return d.paras[i].fcEnd > fc })
	if i < len(d.paras) && d.paras[i].fcStart <= fc {
		return d.paras[i]
	}
	return docPara{}
}

// chars calls fn with each character of CPs [from, to), its CP and its
// byte offset, in order, until fn returns false. Hidden and deleted
// characters are left out, paragraph and cell marks never.
func (d *docFile) chars(from, to int, fn func(r rune, cp, fc int) bool) {
	dec := charmap.Windows1252
	for _, p := range d.pieces {
		lo, hi := max(from, p.cp), min(to, p.cp+p.n)
		for cp := lo; cp < hi; cp++ {
			var r rune
			var fc int
			if p.compressed {
				fc = p.fc + cp - p.cp
				r = dec.DecodeByte(d.word[fc])
			} else {
				fc = p.fc + 2*(cp-p.cp)
				r = rune(binary.LittleEndian.Uint16(d.word[fc:]))
				if r >= 0xD800 && r < 0xDC00 && cp+1 < hi {
					if r2 := rune(binary.LittleEndian.Uint16(d.word[fc+2:])); r2 >= 0xDC00 && r2 < 0xE000 {
						r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
						cp++
					}
				}
			}
			if r != '\r' && r != 0x07 && len(d.hidden) > 0 && d.hiddenAt(fc) {
				continue
			}
			if !fn(r, cp, fc) {
				return
			}
		}
	}
}

// notes returns the notes of a subdocument (footnotes, endnotes or
// comments) at CPs [from, to): each begins with its reference mark (2,
// or 5 for a comment) and runs to the next.
func (d *docFile) notes(from, to int, mark rune, keep int) []string {
	var out []string
	var t textBuf
	t.reset(keep)
	flush := func() {
		if s := strings.Join(strings.Fields(string(t.b)), " "); s != "" {
			out = append(out, s)
		}
		t.reset(keep)
	}
	started, field := false, 0
	d.chars(from, to, func(r rune, _, _ int) bool {
		switch {
		case r == mark:
			if started {
				flush()
			}
			started = true
		case r == 0x13:
			field = 1
		case r == 0x14:
			field = 2
		case r == 0x15:
			field = 0
		case field == 1:
		case r == '\r', r == 0x0B, r == 0x07, r == '\t':
			t.writeString(" ")
		case r < 0x20:
		default:
			t.writeString(string(r))
		}
		return true
	})
	if started {
		flush()
	}
	return out
}

// docField is an open field: its code is read, then its result shown; a
// HYPERLINK's result becomes a link.
type docField struct {
	inCode bool
	code   []byte
	at     int // where the result starts in the paragraph
}

// docWriter writes a document's main text as Markdown.
type docWriter struct {
	d        *docFile
	sink     *sink
	out      *blocks
	keep     int
	comments bool

	para    textBuf
	table   *tableRows
	cell    textBuf
	inCell  bool
	field   []docField // open fields
	counts  map[int][]int
	foot    []string
	end     []string
	notes   []string
	refs    []noteRef
	nFoot   int
	nEnd    int
	nCom    int
	lastFC  int
	paras   int
	listNum map[int][]int
}

func (w *docWriter) write(ctx context.Context) (*Result, error) {
	d := w.d
	c := d.ccp
	start := c[0]
	w.foot = d.notes(start, start+c[1], 2, w.keep)
	start += c[1] + c[2]
	if w.comments {
		w.notes = d.notes(start, start+c[3], 5, w.keep)
	}
	start += c[3]
	w.end = d.notes(start, start+c[4], 2, w.keep)
	w.para.reset(w.keep)
	w.listNum = map[int][]int{}
	n := 0
	d.chars(0, c[0], func(r rune, cp, fc int) bool {
		if n++; n&0xFFFF == 0 && ctx.Err() != nil {
			return false
		}
		w.char(r, cp, fc)
		return true
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if w.para.len() > 0 {
		w.char('\r', c[0], w.lastFC)
	}
	w.endTable()
	for _, r := range w.refs {
		w.out.paragraph(0, "[^"+r.label+"]: "+r.text)
	}
	return &Result{Kind: "doc", As: "Markdown", Description: w.out.describe(), Text: w.sink.text(), Omitted: w.sink.omit}, nil
}

// char handles one character of the main text.
func (w *docWriter) char(r rune, cp, fc int) {
	w.lastFC = fc
	var f *docField
	if n := len(w.field); n > 0 {
		f = &w.field[n-1]
	}
	switch {
	case r == 0x13:
		if len(w.field) < 64 {
			w.field = append(w.field, docField{inCode: true})
		}
		return
	case r == 0x14 && f != nil:
		f.inCode, f.at = false, w.para.len()
		return
	case r == 0x15 && f != nil:
		if url := hyperlink(f.code); url != "" && !f.inCode && w.para.lost == 0 && f.at <= w.para.len() {
			if inner := strings.TrimSpace(string(w.para.b[f.at:])); inner != "" {
				linked := "[" + inner + "](" + url + ")"
				w.para.b = w.para.b[:f.at]
				w.para.writeString(linked)
			}
		}
		w.field = w.field[:len(w.field)-1]
		return
	case f != nil && f.inCode && r != '\r' && r != 0x07:
		if r < 0x20 {
			r = ' '
		}
		if len(f.code) < 2048 {
			f.code = utf8.AppendRune(f.code, r)
		}
		return
	case r == '\r' || r == 0x07 || r == 0x0C:
		w.endPara(fc, r)
		return
	case r == 0x0B:
		w.para.writeString("\n")
	case r == '\t':
		w.para.writeString("\t")
	case r == 0x1E:
		w.para.writeString("-")
	case r == 0x02 && w.d.endRefs[cp]:
		w.ref(&w.nEnd, w.end, "e")
	case r == 0x02:
		w.ref(&w.nFoot, w.foot, "")
	case r == 0x05:
		if w.comments {
			w.ref(&w.nCom, w.notes, "c")
		}
	case r < 0x20 || r == 0x1F:
	default:
		w.para.write(utf8.AppendRune(nil, r))
	}
}

// hyperlink returns the address of a HYPERLINK field's code, or "".
func hyperlink(code []byte) string {
	f := strings.Fields(string(code))
	if len(f) < 2 || !strings.EqualFold(f[0], "HYPERLINK") {
		return ""
	}
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "\\") {
			continue // switches such as \l and \o
		}
		return strings.Trim(a, `"`)
	}
	return ""
}

// ref writes the next note of a list as a reference, keeping its text
// for the end.
func (w *docWriter) ref(n *int, notes []string, prefix string) {
	if *n >= len(notes) {
		return
	}
	*n++
	label := prefix + strconv.Itoa(*n)
	w.para.writeString("[^" + label + "]")
	w.refs = append(w.refs, noteRef{label, notes[*n-1]})
}

// endPara ends a paragraph at the mark at byte fc: a cell's or a table
// row's end, or a paragraph of the text.
func (w *docWriter) endPara(fc int, mark rune) {
	p := w.d.paraAt(fc)
	text := strings.TrimSpace(string(w.para.b))
	lost := w.para.lost
	w.para.reset(w.keep)
	if p.inTable || mark == 0x07 {
		if w.table == nil {
			w.table = newTableRows(w.keep)
			w.table.startRow()
			w.cell.reset(w.keep)
		}
		if p.ttp {
			w.table.endRow()
			w.table.startRow()
			return
		}
		if text != "" {
			if w.cell.len() > 0 {
				w.cell.writeString("\n")
			}
			w.cell.writeString(text)
			w.cell.lost += lost
		}
		if mark == 0x07 {
			w.table.cell(string(w.cell.b), w.cell.lost)
			w.cell.reset(w.keep)
		}
		return
	}
	w.endTable()
	if text == "" {
		return
	}
	level := p.outline
	if level == 0 && p.istd >= 1 && p.istd <= 9 {
		level = p.istd
	}
	switch {
	case level > 0:
		w.out.paragraph(level, text)
	case p.ilfo > 0:
		lvl := min(max(p.ilvl, 0), 8)
		marker := "-"
		if levels := w.d.lists[p.ilfo]; lvl < len(levels) && levels[lvl] {
			c := w.listNum[p.ilfo]
			if c == nil {
				c = make([]int, 9)
				w.listNum[p.ilfo] = c
			}
			c[lvl]++
			clear(c[lvl+1:])
			marker = strconv.Itoa(c[lvl]) + "."
		}
		w.out.item(lvl, marker, text)
	default:
		w.out.paragraph(0, text)
	}
	w.out.lost(lost)
}

// endTable writes the table being read, if any.
func (w *docWriter) endTable() {
	if w.table == nil {
		return
	}
	t := w.table
	w.table = nil
	// The row started after the last row mark is empty: drop it.
	if n := len(t.rows); n > 0 && len(t.rows[n-1]) == 0 && !t.measuring {
		t.rows = t.rows[:n-1]
	}
	w.out.table(t)
}
