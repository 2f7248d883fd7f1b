package pdf

import (
	"bytes"
	"context"
)

// Limits bound what reading a document may cost.
type Limits struct {
	// MaxUnpacked caps the bytes decoded from streams, all together.
	MaxUnpacked int64
	// MaxDepth caps the nesting of arrays and dictionaries, of form
	// XObjects and of reference chains.
	MaxDepth int
	// MaxTokens caps the work of reading, all together: the tokens read
	// from the file and its content streams, a token more for every 4
	// bytes an object's tokens span, one for every glyph shown and 64
	// for every form run.
	MaxTokens int64
	// MaxPages caps the pages.
	MaxPages int
}

// Document is a PDF file opened for reading. It is not safe for
// concurrent use.
type Document struct {
	data    []byte
	lim     Limits
	ctx     context.Context
	xref    map[int]xrefEntry
	trailer Dict
	cache   map[int]Object
	loading map[int]bool
	stms    map[int]*objStream
	crypt   *crypt
	fonts   map[Ref]*font
	// forms holds the decoded content of small form XObjects;
	// formBytes counts its bytes.
	forms     map[*Stream][]byte
	formBytes int
	// windows are the content lexers' windows, one a level of forms.
	windows [][]byte

	unpacked int64
	tokens   int64
	// objErr is the first limit or decryption error an object's
	// reading ran into; objects that fail otherwise read as null, as
	// readers do.
	objErr error
	// Repaired reports that the cross-reference table was unusable and
	// the objects were found by scanning the file.
	Repaired bool
}

// Open reads the structure of a PDF file: its cross-reference table (or,
// when that is broken, the objects found by scanning) and its trailer.
// An encrypted file is opened with the empty user password; one that
// needs another password fails with ErrPassword.
func Open(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	d := newDocument(ctx, data, lim)
	if i := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-")); i < 0 {
		return nil, errorf("no %%PDF- header")
	}
	err := d.readXref()
	if err == nil && d.resolveDict(d.trailer["Root"]) == nil {
		err = errorf("the trailer's /Root is not a dictionary")
	}
	if err != nil {
		if isFatal(err) {
			return nil, err
		}
		d.Repaired = true
		if err := d.rebuildXref(); err != nil {
			if d.objErr != nil {
				return nil, d.objErr
			}
			return nil, err
		}
	}
	if enc := d.trailer["Encrypt"]; enc != nil {
		c, err := d.newCrypt(enc)
		if err != nil {
			return nil, err
		}
		d.crypt = c
		d.cache = map[int]Object{} // objects read so far were not decrypted
		d.stms = map[int]*objStream{}
	}
	if d.tokens > d.lim.MaxTokens {
		return nil, &LimitError{Limit: "tokens", Max: d.lim.MaxTokens}
	}
	return d, nil
}

// newDocument returns a document over data, its structure not read.
func newDocument(ctx context.Context, data []byte, lim Limits) *Document {
	return &Document{data: data, lim: lim, ctx: ctx, xref: map[int]xrefEntry{}, cache: map[int]Object{}, loading: map[int]bool{}, stms: map[int]*objStream{}, fonts: map[Ref]*font{}, forms: map[*Stream][]byte{}}
}

func isLimit(err error) bool {
	_, ok := err.(*LimitError)
	return ok
}

// isFatal reports the errors that are not quiet: a limit, and data that
// does not decrypt.
func isFatal(err error) bool { return isLimit(err) || isDecrypt(err) }

func (d *Document) newParser(b []byte) *parser {
	return &parser{lx: newSliceLexer(b), maxDepth: d.lim.MaxDepth, maxElems: maxElemsDefault, tokens: &d.tokens, maxTokens: d.lim.MaxTokens}
}

// indirect reads "N G obj object endobj" (or a stream) at the parser's
// position.
func (p *parser) indirect() (Object, error) {
	n, _ := p.token()
	g, _ := p.token()
	k, kb := p.token()
	if n.kind != tInt || g.kind != tInt || k.kind != tKeyword || string(kb) != "obj" {
		if p.err != nil {
			return nil, p.err
		}
		return nil, errorf("no object header")
	}
	p.ref = Ref{Num: int(n.i), Gen: int(g.i)}
	o, _, err := p.object(0)
	if err != nil {
		return nil, err
	}
	dict, ok := o.(Dict)
	if !ok {
		return o, nil
	}
	// A stream follows its dictionary: "stream" and one line end.
	lx := p.lx
	lx.skipSpace()
	if !bytes.HasPrefix(lx.buf[lx.pos:], []byte("stream")) {
		return dict, nil
	}
	start := lx.pos + len("stream")
	if start < len(lx.buf) && lx.buf[start] == '\r' {
		start++
	}
	if start < len(lx.buf) && lx.buf[start] == '\n' {
		start++
	}
	return &Stream{Dict: dict, Raw: lx.buf[start:], ref: p.ref}, nil
}

// load reads object num, unresolved and uncached.
func (d *Document) load(num int) (Object, error) {
	e, ok := d.xref[num]
	if !ok || !e.inStm && (e.offset < 0 || e.offset >= int64(len(d.data))) {
		return nil, nil
	}
	if e.inStm {
		if e.stm == num {
			return nil, nil
		}
		s, ok := d.resolve(Ref{Num: e.stm}).(*Stream)
		if !ok {
			return nil, nil
		}
		st, err := d.objStm(e.stm, s)
		if err != nil {
			return nil, err
		}
		return st.object(d, e.index)
	}
	p := d.newParser(d.data[e.offset:])
	if d.crypt != nil {
		p.decrypt = d.crypt.decryptString
	}
	o, err := p.indirect()
	if err != nil {
		return nil, err
	}
	if s, ok := o.(*Stream); ok {
		d.setStreamLength(s)
	}
	return o, nil
}

// setStreamLength cuts a stream's raw bytes at its /Length when that
// ends at "endstream", else at the first "endstream": a length that
// points elsewhere (a gigabyte in a small file, an edited file) is not
// trusted.
func (d *Document) setStreamLength(s *Stream) {
	raw := s.Raw
	if n, ok := d.resolve(s.Dict["Length"]).(int64); ok && n >= 0 && n <= int64(len(raw)) {
		rest := bytes.TrimLeft(raw[n:min(int64(len(raw)), n+64)], " \r\n\t\f\x00")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			s.Raw = raw[:n:n]
			return
		}
	}
	if i := bytes.Index(raw, []byte("endstream")); i >= 0 {
		raw = raw[:i]
		// The line end before endstream is not data.
		if bytes.HasSuffix(raw, []byte("\r\n")) {
			raw = raw[:len(raw)-2]
		} else if bytes.HasSuffix(raw, []byte("\n")) || bytes.HasSuffix(raw, []byte("\r")) {
			raw = raw[:len(raw)-1]
		}
	}
	s.Raw = raw[:len(raw):len(raw)]
}

// resolve follows references, returning nil for a missing, free or
// unreadable object and for reference loops.
func (d *Document) resolve(o Object) Object {
	for hops := 0; hops < 32; hops++ {
		r, ok := o.(Ref)
		if !ok {
			return o
		}
		if v, ok := d.cache[r.Num]; ok {
			o = v
			continue
		}
		if d.loading[r.Num] {
			return nil // an object whose value refers back to itself
		}
		d.loading[r.Num] = true
		v, err := d.load(r.Num)
		delete(d.loading, r.Num)
		if err != nil {
			if isFatal(err) && d.objErr == nil {
				d.objErr = err
			}
			v = nil
		}
		d.cache[r.Num] = v
		o = v
	}
	return nil
}

func (d *Document) resolveDict(o Object) Dict {
	switch v := d.resolve(o).(type) {
	case Dict:
		return v
	case *Stream:
		return v.Dict
	}
	return nil
}

func (d *Document) resolveArray(o Object) Array {
	a, _ := d.resolve(o).(Array)
	return a
}

func (d *Document) resolveNum(o Object) (float64, bool) { return num(d.resolve(o)) }

// objStream is a decoded object stream.
type objStream struct {
	data []byte
	nums []int
	offs []int
}

func (d *Document) objStm(num int, s *Stream) (*objStream, error) {
	if st, ok := d.stms[num]; ok {
		if st == nil {
			return nil, errorf("object stream %d refers to itself", num)
		}
		return st, nil
	}
	d.stms[num] = nil
	data, err := d.decodeAll(s)
	if err != nil {
		return nil, err
	}
	n, _ := s.Dict["N"].(int64)
	first, _ := s.Dict["First"].(int64)
	if n < 0 || first < 0 || first > int64(len(data)) || n > first {
		return nil, errorf("object stream %d is malformed", num)
	}
	st := &objStream{data: data[first:]}
	lx := newSliceLexer(data[:first])
	for i := int64(0); i < n; i++ {
		a, b := lx.token(), lx.token()
		if a.kind != tInt || b.kind != tInt {
			break
		}
		st.nums = append(st.nums, int(a.i))
		st.offs = append(st.offs, int(b.i))
	}
	d.stms[num] = st
	return st, nil
}

func (st *objStream) object(d *Document, index int) (Object, error) {
	if index < 0 || index >= len(st.offs) || st.offs[index] < 0 || st.offs[index] > len(st.data) {
		return nil, nil
	}
	// Strings inside an object stream are not encrypted on their own.
	p := d.newParser(st.data[st.offs[index]:])
	o, _, err := p.object(0)
	return o, err
}

// Trailer returns the trailer dictionary.
func (d *Document) Trailer() Dict { return d.trailer }
