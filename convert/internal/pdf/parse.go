package pdf

// parser reads objects from a lexer, with two tokens of look-ahead for
// references ("12 0 R").
type parser struct {
	lx       *lexer
	back     []savedToken
	maxDepth int
	// maxElems caps the elements of one array or dictionary.
	maxElems int
	// tokens counts tokens read, for the document's budget; past
	// maxTokens the parser reads an end of data and err says why.
	tokens    *int64
	maxTokens int64
	err       error
	// decrypt, when set, decrypts strings; ref is the object being read.
	decrypt func(s []byte, ref Ref) ([]byte, error)
	ref     Ref
	// kw holds the keyword object returned last, when it was one.
	kw []byte
}

type savedToken struct {
	t token
	b []byte
}

const maxElemsDefault = 1 << 20

func (p *parser) token() (token, []byte) {
	if n := len(p.back); n > 0 {
		s := p.back[n-1]
		p.back = p.back[:n-1]
		return s.t, s.b
	}
	if p.tokens != nil {
		if *p.tokens++; *p.tokens > p.maxTokens {
			if p.err == nil {
				p.err = &LimitError{Limit: "tokens", Max: p.maxTokens}
			}
			return token{kind: tEOF}, nil
		}
	}
	start := p.lx.pos
	t := p.lx.token()
	if p.tokens != nil {
		// Bytes count too, a token every 4: a string left open reads
		// to the end of the data, and a file of many such objects would
		// otherwise cost its length squared for a token each.
		*p.tokens += int64(p.lx.pos-start) >> 2
	}
	return t, p.lx.scratch
}

func (p *parser) unread(t token, b []byte) {
	p.back = append(p.back, savedToken{t, append([]byte(nil), b...)})
}

// errDepth is returned when objects nest deeper than allowed.
var errDepth = &LimitError{Limit: "nesting depth"}

// object reads one object. A keyword that is not an object (an operator,
// "endobj", "stream") is returned as a keyword and its text.
func (p *parser) object(depth int) (Object, token, error) {
	t, b := p.token()
	p.kw = p.kw[:0]
	switch t.kind {
	case tEOF:
		if p.err != nil {
			return nil, t, p.err
		}
		return nil, t, errorf("unexpected end of data")
	case tInt:
		// Maybe a reference: int int R.
		t2, b2 := p.token()
		if t2.kind == tInt {
			t3, b3 := p.token()
			if t3.kind == tKeyword && string(b3) == "R" {
				if t.i < 0 || t.i > 1<<31 || t2.i < 0 || t2.i > 1<<31 {
					return nil, t, nil
				}
				return Ref{Num: int(t.i), Gen: int(t2.i)}, t, nil
			}
			p.unread(t3, b3)
		}
		p.unread(t2, b2)
		return t.i, t, nil
	case tReal:
		return t.f, t, nil
	case tName:
		return Name(b), t, nil
	case tString:
		s := append([]byte(nil), b...)
		if p.decrypt != nil {
			var err error
			if s, err = p.decrypt(s, p.ref); err != nil {
				return nil, t, err
			}
		}
		return String(s), t, nil
	case tArrayOpen:
		if depth >= p.maxDepth {
			return nil, t, &LimitError{Limit: "nesting depth", Max: int64(p.maxDepth)}
		}
		var a Array
		for {
			o, t2, err := p.object(depth + 1)
			if err != nil {
				return a, t, err
			}
			if t2.kind == tArrayClose {
				return a, t, nil
			}
			if t2.kind == tDictClose || t2.kind == tEOF {
				return a, t, nil
			}
			if t2.kind == tKeyword && o == nil && len(p.kw) > 0 {
				// An unclosed array: the keyword after it belongs to
				// the caller.
				p.unread(t2, p.kw)
				return a, t, nil
			}
			if len(a) < p.maxElems {
				a = append(a, o)
			}
		}
	case tDictOpen:
		if depth >= p.maxDepth {
			return nil, t, &LimitError{Limit: "nesting depth", Max: int64(p.maxDepth)}
		}
		d := Dict{}
		for {
			k, kb := p.token()
			if k.kind == tDictClose || k.kind == tEOF {
				return d, t, p.err
			}
			if k.kind != tName {
				if k.kind == tKeyword && (string(kb) == "endobj" || string(kb) == "stream" || string(kb) == "obj") {
					// The object's end, or the next object's header:
					// the dictionary was left open.
					p.unread(k, kb)
					return d, t, nil
				}
				continue // a stray token: skip it, as readers do
			}
			key := Name(kb)
			v, t2, err := p.object(depth + 1)
			if err != nil {
				return d, t, err
			}
			if t2.kind == tDictClose {
				return d, t, nil
			}
			if len(d) < p.maxElems {
				d[key] = v
			}
		}
	case tKeyword:
		switch string(b) {
		case "true":
			return true, t, nil
		case "false":
			return false, t, nil
		case "null":
			return nil, t, nil
		}
		p.kw = append(p.kw[:0], b...)
		return nil, t, nil
	}
	return nil, t, nil
}
