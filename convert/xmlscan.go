package convert

import (
	"bytes"
	"context"
	"io"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// xmlScanner is a streaming XML tokenizer for the parts of Office and
// OpenDocument files. encoding/xml reads about 22 MB/s here, so a 100,000
// row sheet (43 MB of XML) took 2 s to tokenize alone; this scanner reads
// the same sheet in a tenth of that by not allocating per token: names,
// attributes and text are slices of its buffer, valid until the next
// call to next.
//
// It is strict where safety needs it and lenient elsewhere: a DOCTYPE is
// refused (so no entity is ever declared, let alone expanded), only the
// five predefined entities and character references are decoded, end
// tags must match, and nesting depth, token count, token size and the
// bytes read are bounded. Namespaces are resolved to the small IDs of
// namespaceIDs; an unknown namespace resolves to nsNone.
type xmlScanner struct {
	ctx       context.Context
	r         io.Reader
	buf       []byte
	pos, end  int
	eof       bool
	stopped   bool // reading stopped past the cap (errStopped): the part ends here
	started   bool
	maxDepth  int
	maxTokens int
	tokens    *int

	kind    tokKind
	ns      int
	local   []byte
	attrs   []xmlAttr
	text    []byte
	scratch []byte
	arena   []byte

	pendingEnd bool
	// The open elements' qualified names, end to end in names; stack
	// holds where each starts. End tags are compared with them byte for
	// byte: a hash would let a collision pass a malformed document.
	stack []int32
	names []byte
	binds []binding
	// The default namespace and the last two prefixes resolved, reset
	// whenever a binding comes or goes: documents use a handful of
	// prefixes over and over (w:, a:), and searching the bindings for
	// every tag cost a fifth of a sheet's time.
	defaultNS int
	cache     [2]prefixNS
}

type prefixNS struct {
	prefix string
	ns     int
	ok     bool
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokStart
	tokEnd
	tokText
)

type xmlAttr struct {
	prefix, local, raw []byte
	ns                 int
}

type binding struct {
	prefix string
	ns     int
	depth  int
}

const (
	xmlChunk      = 64 << 10
	maxTokenBytes = 16 << 20
	// maxNameBytes bounds an element's name, and so the names of the
	// open elements the scanner keeps: MaxDepth × 4 KiB at most.
	maxNameBytes = 4 << 10
)

func newXMLScanner(ctx context.Context, r io.Reader, lim Limits, tokens *int) *xmlScanner {
	if tokens == nil {
		tokens = new(int)
	}
	return &xmlScanner{ctx: ctx, r: r, buf: make([]byte, xmlChunk), maxDepth: lim.MaxDepth, maxTokens: lim.MaxTokens, tokens: tokens}
}

var errIncomplete = formatErr("", "truncated XML", nil)

func xmlErr(reason string) error { return formatErr("", "malformed XML: "+reason, nil) }

// fill reads more input, keeping buf[pos:end]. It grows the buffer when
// a token does not fit, up to maxTokenBytes.
func (s *xmlScanner) fill() error {
	if s.eof || s.stopped {
		return errIncomplete
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxTokenBytes {
			return limitErr("", "bytes in one XML token", maxTokenBytes)
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	n, err := io.ReadFull(s.r, s.buf[s.end:])
	s.end += n
	switch err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		s.eof = true
	case errStopped:
		// What the buffer holds is still read, up to its last whole
		// token; then next closes the open elements.
		s.stopped = true
	default:
		return err
	}
	if !s.started && (s.end >= 3 || s.eof) {
		s.started = true
		return s.checkBOM()
	}
	return nil
}

// checkBOM skips a UTF-8 byte order mark and decodes UTF-16 input.
func (s *xmlScanner) checkBOM() error {
	b := s.buf[s.pos:s.end]
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		s.pos += 3
	case hasUTF16BOM(b):
		rest := io.MultiReader(bytes.NewReader(bytes.Clone(b)), s.r)
		s.r = transform.NewReader(rest, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder())
		// The bytes read are decoded again; a stop comes again after them.
		s.pos, s.end, s.eof, s.stopped = 0, 0, false, false
		return s.fill()
	}
	return nil
}

// next reads the next token: a start tag (an empty element gives a start
// and an end), an end tag, or a run of text. Comments and processing
// instructions are skipped. It returns tokEOF at the end of a
// well-formed document.
func (s *xmlScanner) next() (tokKind, error) {
	if s.pendingEnd {
		s.pendingEnd = false
		s.kind = tokEnd
		s.pop()
		return tokEnd, nil
	}
	*s.tokens++
	if *s.tokens > s.maxTokens {
		return tokEOF, limitErr("", "XML tokens", int64(s.maxTokens))
	}
	if *s.tokens&0xFFFF == 0 {
		if err := s.ctx.Err(); err != nil {
			return tokEOF, err
		}
	}
	for {
		if s.pos >= s.end {
			if s.stopped {
				if len(s.stack) > 0 {
					return s.closeStopped(), nil
				}
				s.kind = tokEOF
				return tokEOF, nil
			}
			if s.eof {
				if len(s.stack) > 0 {
					return tokEOF, errIncomplete
				}
				s.kind = tokEOF
				return tokEOF, nil
			}
			if err := s.fill(); err != nil {
				return tokEOF, err
			}
			continue
		}
		var (
			k   tokKind
			err error
		)
		if s.buf[s.pos] == '<' {
			k, err = s.markup()
		} else {
			k, err = s.textRun()
		}
		if err == errIncomplete && s.stopped {
			// A token cut by the stop is dropped.
			s.pos = s.end
			continue
		}
		if err == errIncomplete && !s.eof {
			if err = s.fill(); err != nil {
				return tokEOF, err
			}
			continue
		}
		if err != nil {
			return tokEOF, err
		}
		if k == tokEOF { // a comment or processing instruction
			continue
		}
		s.kind = k
		return k, nil
	}
}

// closeStopped gives the end tag of the innermost open element once
// reading has stopped past the cap, as if the part ended there: the
// readers finish what they gather (a paragraph, a row, a table) as at the
// end of any part, and nothing they read after the cut is shown.
func (s *xmlScanner) closeStopped() tokKind {
	top := len(s.stack) - 1
	s.scratch = append(s.scratch[:0], s.names[s.stack[top]:]...)
	prefix, local := splitName(s.scratch)
	s.ns, s.local = s.resolve(prefix), local
	s.pop()
	s.kind = tokEnd
	return tokEnd
}

// textRun reads text up to the next '<'. A run longer than the buffer is
// returned in pieces, never splitting an entity or a CR LF pair.
func (s *xmlScanner) textRun() (tokKind, error) {
	b := s.buf[s.pos:s.end]
	i := bytes.IndexByte(b, '<')
	if i < 0 {
		if !s.eof && len(b) < xmlChunk {
			return tokEOF, errIncomplete
		}
		i = len(b)
		if !s.eof {
			if amp := bytes.LastIndexByte(b, '&'); amp >= 0 && bytes.IndexByte(b[amp:], ';') < 0 {
				i = amp
			}
			if i > 0 && b[i-1] == '\r' {
				i--
			}
			if i == 0 {
				return tokEOF, errIncomplete
			}
		}
	}
	raw := b[:i]
	s.pos += i
	if bytes.IndexByte(raw, '&') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		s.text = raw
		return tokText, nil
	}
	var ok bool
	s.scratch, ok = decodeEntities(s.scratch[:0], raw)
	if !ok {
		return tokEOF, xmlErr("unknown entity or bad character reference")
	}
	s.text = s.scratch
	return tokText, nil
}

// markup reads what starts at '<'.
func (s *xmlScanner) markup() (tokKind, error) {
	b := s.buf[s.pos:s.end]
	if len(b) < 2 {
		return tokEOF, errIncomplete
	}
	switch b[1] {
	case '/':
		return s.endTag(b)
	case '?':
		i := bytes.Index(b, []byte("?>"))
		if i < 0 {
			return tokEOF, errIncomplete
		}
		s.pos += i + 2
		return tokEOF, nil
	case '!':
		return s.bang(b)
	}
	return s.startTag(b)
}

func (s *xmlScanner) bang(b []byte) (tokKind, error) {
	switch {
	case bytes.HasPrefix(b, []byte("<!--")):
		i := bytes.Index(b[4:], []byte("-->"))
		if i < 0 {
			return tokEOF, errIncomplete
		}
		s.pos += 4 + i + 3
		return tokEOF, nil
	case bytes.HasPrefix(b, []byte("<![CDATA[")):
		i := bytes.Index(b[9:], []byte("]]>"))
		if i < 0 {
			return tokEOF, errIncomplete
		}
		raw := b[9 : 9+i]
		s.pos += 9 + i + 3
		s.scratch = appendNewlines(s.scratch[:0], raw)
		s.text = s.scratch
		return tokText, nil
	case len(b) < 9 && !s.eof:
		return tokEOF, errIncomplete
	}
	return tokEOF, formatErr("", "a DOCTYPE or other declaration is refused in XML (entity declarations could expand without bound)", nil)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nameEnd returns the end of the name starting at b[i].
func nameEnd(b []byte, i int) int {
	for i < len(b) {
		switch c := b[i]; {
		case isSpace(c), c == '/', c == '>', c == '=':
			return i
		}
		i++
	}
	return i
}

// splitName splits a qualified name at its colon; a name with the colon
// first or last has no prefix, as encoding/xml reads it.
func splitName(n []byte) (prefix, local []byte) {
	if i := bytes.IndexByte(n, ':'); i > 0 && i < len(n)-1 {
		return n[:i], n[i+1:]
	}
	return nil, n
}

func (s *xmlScanner) startTag(b []byte) (tokKind, error) {
	i := nameEnd(b, 1)
	if i == len(b) {
		return tokEOF, errIncomplete
	}
	qname := b[1:i]
	if len(qname) == 0 {
		return tokEOF, xmlErr("empty element name")
	}
	if len(qname) > maxNameBytes {
		return tokEOF, limitErr("", "bytes in one XML element name", maxNameBytes)
	}
	s.attrs = s.attrs[:0]
	empty := false
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return tokEOF, errIncomplete
		}
		if b[i] == '>' {
			i++
			break
		}
		if b[i] == '/' {
			if i+1 >= len(b) {
				return tokEOF, errIncomplete
			}
			if b[i+1] != '>' {
				return tokEOF, xmlErr("'/' not followed by '>'")
			}
			i += 2
			empty = true
			break
		}
		j := nameEnd(b, i)
		an := b[i:j]
		if len(an) == 0 {
			return tokEOF, xmlErr("bad attribute")
		}
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if j >= len(b) {
			return tokEOF, errIncomplete
		}
		if b[j] != '=' {
			return tokEOF, xmlErr("attribute without value")
		}
		j++
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if j >= len(b) {
			return tokEOF, errIncomplete
		}
		q := b[j]
		if q != '"' && q != '\'' {
			return tokEOF, xmlErr("unquoted attribute value")
		}
		k := bytes.IndexByte(b[j+1:], q)
		if k < 0 {
			return tokEOF, errIncomplete
		}
		p, l := splitName(an)
		s.attrs = append(s.attrs, xmlAttr{prefix: p, local: l, raw: b[j+1 : j+1+k]})
		i = j + 1 + k + 1
	}
	if len(s.stack) >= s.maxDepth {
		return tokEOF, limitErr("", "levels of XML nesting", int64(s.maxDepth))
	}
	s.pos += i
	s.stack = append(s.stack, int32(len(s.names)))
	s.names = append(s.names, qname...)
	s.arena = s.arena[:0]
	depth := len(s.stack)
	for _, a := range s.attrs {
		switch {
		case len(a.prefix) == 0 && string(a.local) == "xmlns":
			s.bind("", a.raw, depth)
		case string(a.prefix) == "xmlns":
			s.bind(string(a.local), a.raw, depth)
		}
	}
	for k := range s.attrs {
		if a := &s.attrs[k]; len(a.prefix) > 0 {
			a.ns = s.resolve(a.prefix)
		}
	}
	prefix, local := splitName(qname)
	s.ns, s.local = s.resolve(prefix), local
	s.pendingEnd = empty
	return tokStart, nil
}

func (s *xmlScanner) bind(prefix string, raw []byte, depth int) {
	uri, _ := decodeEntities(nil, raw)
	s.binds = append(s.binds, binding{prefix: prefix, ns: namespaceIDs[string(uri)], depth: depth})
	s.rebind()
}

// rebind resets the resolution caches after the bindings changed.
func (s *xmlScanner) rebind() {
	s.cache = [2]prefixNS{}
	s.defaultNS = s.lookup(nil)
}

func (s *xmlScanner) resolve(prefix []byte) int {
	if len(prefix) == 0 {
		return s.defaultNS
	}
	for i := range s.cache {
		if c := &s.cache[i]; c.ok && c.prefix == string(prefix) {
			return c.ns
		}
	}
	ns := s.lookup(prefix)
	s.cache[1] = s.cache[0]
	s.cache[0] = prefixNS{prefix: string(prefix), ns: ns, ok: true}
	return ns
}

func (s *xmlScanner) lookup(prefix []byte) int {
	if string(prefix) == "xml" {
		return nsXML
	}
	for i := len(s.binds) - 1; i >= 0; i-- {
		if s.binds[i].prefix == string(prefix) {
			return s.binds[i].ns
		}
	}
	return nsNone
}

func (s *xmlScanner) endTag(b []byte) (tokKind, error) {
	i := bytes.IndexByte(b, '>')
	if i < 0 {
		return tokEOF, errIncomplete
	}
	qname := b[2:i]
	for len(qname) > 0 && isSpace(qname[len(qname)-1]) {
		qname = qname[:len(qname)-1]
	}
	if len(s.stack) == 0 || !bytes.Equal(s.names[s.stack[len(s.stack)-1]:], qname) {
		return tokEOF, xmlErr("end tag </" + string(qname) + "> does not match")
	}
	s.pos += i + 1
	prefix, local := splitName(qname)
	s.ns, s.local = s.resolve(prefix), local
	s.pop()
	return tokEnd, nil
}

// pop leaves the current element.
func (s *xmlScanner) pop() {
	top := len(s.stack) - 1
	s.names = s.names[:s.stack[top]]
	s.stack = s.stack[:top]
	d := len(s.stack)
	if n := len(s.binds); n > 0 && s.binds[n-1].depth > d {
		for len(s.binds) > 0 && s.binds[len(s.binds)-1].depth > d {
			s.binds = s.binds[:len(s.binds)-1]
		}
		s.rebind()
	}
}

// depth is the number of open elements; inside a start tag's element it
// counts that element.
func (s *xmlScanner) depth() int { return len(s.stack) }

// is reports whether the current token is named ns:local.
func (s *xmlScanner) is(ns int, local string) bool {
	return s.ns == ns && string(s.local) == local
}

// attr returns the decoded value of the current start tag's attribute
// ns:local (ns nsNone for an unprefixed attribute). The value stays valid
// until the next token.
func (s *xmlScanner) attr(ns int, local string) ([]byte, bool) {
	for _, a := range s.attrs {
		if a.ns == ns && string(a.local) == local && (ns != nsNone || len(a.prefix) == 0) {
			if bytes.IndexByte(a.raw, '&') < 0 {
				return a.raw, true
			}
			start := len(s.arena)
			var ok bool
			if s.arena, ok = decodeEntities(s.arena, a.raw); !ok {
				return a.raw, true
			}
			return s.arena[start:], true
		}
	}
	return nil, false
}

func (s *xmlScanner) attrString(ns int, local string) string {
	v, _ := s.attr(ns, local)
	return string(v)
}

// inside reads the next token inside the element that was open at depth
// d (its start tag read last when d is the depth then; 0 for the whole
// part), and reports false instead at that element's end tag or, for the
// whole part, at its end. The input ending inside the element is an
// error.
func (s *xmlScanner) inside(d int) (tokKind, bool, error) {
	k, err := s.next()
	switch {
	case err != nil:
		return k, false, err
	case k == tokEOF && d > 0:
		return k, false, errIncomplete
	case k == tokEOF, k == tokEnd && s.depth() < d:
		return k, false, nil
	}
	return k, true, nil
}

// skip reads up to and including the end of the element whose start tag
// was just read.
func (s *xmlScanner) skip() error {
	d := s.depth()
	for {
		if _, ok, err := s.inside(d); !ok {
			return err
		}
	}
}

// eachText calls fn with each run of text inside the element whose start
// tag was just read, and reads up to its end. The text is the scanner's
// own: fn copies what it keeps.
func (s *xmlScanner) eachText(fn func([]byte)) error {
	return s.eachTextErr(func(p []byte) error { fn(p); return nil })
}

// eachTextErr is eachText stopping at fn's first error.
func (s *xmlScanner) eachTextErr(fn func([]byte) error) error {
	d := s.depth()
	for {
		k, ok, err := s.inside(d)
		if !ok {
			return err
		}
		if k == tokText {
			if err := fn(s.text); err != nil {
				return err
			}
		}
	}
}
