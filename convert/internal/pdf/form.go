package pdf

import (
	"bytes"
	"io"
)

// The decoded content of small forms is kept (see Document.forms):
// forms of up to maxCachedForm bytes, maxFormCache bytes in all.
const (
	maxCachedForm = 64 << 10
	maxFormCache  = 4 << 20
)

// xobject draws the XObject that res names: an image is counted; a
// form's content runs with its matrix and resources, unless it is one
// of the forms being run (a form that draws itself, directly or not).
func (in *interp) xobject(res Dict, name Name, depth int) error {
	xs := in.d.resolveDict(res["XObject"])
	s, ok := in.d.resolve(xs[name]).(*Stream)
	if !ok {
		return nil
	}
	switch in.d.resolve(s.Dict["Subtype"]) {
	case Name("Image"):
		in.images++
		return nil
	case Name("Form"):
	default:
		return nil
	}
	if depth >= in.d.lim.MaxDepth || len(in.forms) >= 64 {
		return &LimitError{Limit: "nesting depth", Max: int64(min(in.d.lim.MaxDepth, 64))}
	}
	for _, f := range in.forms {
		if f == s {
			return nil // a form that draws itself
		}
	}
	if in.d.tokens += formTokens; in.d.tokens >= in.check {
		if err := in.budget(); err != nil {
			return err
		}
	}
	lx, err := in.formLexer(s, depth+1)
	if err != nil {
		return err
	}
	if lx == nil {
		return nil // a form we cannot decode draws nothing we can read
	}
	saved, savedStack := in.gs, len(in.stack)
	savedTm, savedTlm := in.tm, in.tlm
	m := identity
	if a := in.d.resolveArray(s.Dict["Matrix"]); len(a) == 6 {
		for i := range m {
			m[i], _ = in.d.resolveNum(a[i])
		}
	}
	in.gs.ctm = m.mul(in.gs.ctm)
	formRes := in.d.resolveDict(s.Dict["Resources"])
	if formRes == nil {
		formRes = res
	}
	in.forms = append(in.forms, s)
	// The form's operators use the operand buffers; keep the caller's.
	ops, elems, arena := in.ops, in.elems, in.arena
	in.ops, in.elems, in.arena = nil, nil, nil
	err = in.run(lx, formRes, depth+1)
	in.ops, in.elems, in.arena = ops, elems, arena
	in.forms = in.forms[:len(in.forms)-1]
	in.gs, in.stack = saved, in.stack[:min(savedStack, len(in.stack))]
	in.tm, in.tlm = savedTm, savedTlm
	return err
}

// formLexer returns a lexer of a form's content: its decoded bytes, kept
// when the form is small, so that a form drawn again (a logo on every
// page, a symbol many times on one) is decoded once. Reading kept bytes
// again counts against the budget of unpacked bytes as decoding them
// would: forms that draw each other cost what they would undecoded. A
// nil lexer is a form that does not decode.
func (in *interp) formLexer(s *Stream, depth int) (*lexer, error) {
	d := in.d
	if data, ok := d.forms[s]; ok {
		if d.unpacked += int64(len(data)); d.unpacked > d.lim.MaxUnpacked {
			return nil, &LimitError{Limit: "unpacked bytes", Max: d.lim.MaxUnpacked}
		}
		return &lexer{buf: data, maxToken: maxTokenDefault}, nil
	}
	r, err := d.open(s)
	if isFatal(err) {
		return nil, err
	}
	if err != nil {
		return nil, nil
	}
	if d.formBytes < maxFormCache {
		head, err := io.ReadAll(io.LimitReader(r, maxCachedForm+1))
		if err != nil {
			return nil, err // only the budget's and decryption's reach here
		}
		if len(head) <= maxCachedForm {
			d.forms[s] = head
			d.formBytes += len(head)
			return &lexer{buf: head, maxToken: maxTokenDefault}, nil
		}
		r = io.MultiReader(bytes.NewReader(head), r)
	}
	return in.streamLexer(r, depth), nil
}
