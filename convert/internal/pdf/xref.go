package pdf

import (
	"bytes"
	"strconv"
)

// xrefEntry locates an object: at an offset of the file (inStm false) or
// as the index-th object of object stream stm.
type xrefEntry struct {
	offset int64
	stm    int
	index  int
	inStm  bool
}

// readXref reads the cross-reference sections from startxref back
// through /Prev, newest first, so that a newer entry wins. It fails on
// anything it cannot follow; the caller then rebuilds the table by
// scanning the file.
func (d *Document) readXref() error {
	tail := d.data[max(0, len(d.data)-4096):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return errorf("no startxref")
	}
	lx := newSliceLexer(tail[i+len("startxref"):])
	t := lx.token()
	if t.kind != tInt {
		return errorf("startxref has no offset")
	}
	off := t.i
	seen := map[int64]bool{}
	for n := 0; off > 0 || n == 0; n++ {
		if seen[off] || n > 1000 {
			return errorf("cross-reference sections loop")
		}
		seen[off] = true
		if off < 0 || off >= int64(len(d.data)) {
			return errorf("cross-reference offset %d out of the file", off)
		}
		trailer, err := d.readSection(off)
		if err != nil {
			return err
		}
		if d.trailer == nil {
			d.trailer = trailer
		}
		// A hybrid file's table points at a stream holding the objects
		// it leaves out.
		if stm, ok := trailer["XRefStm"].(int64); ok && !seen[stm] && stm > 0 && stm < int64(len(d.data)) {
			seen[stm] = true
			if _, err := d.readSection(stm); err != nil {
				return err
			}
		}
		prev, ok := trailer["Prev"].(int64)
		if !ok {
			break
		}
		off = prev
	}
	return nil
}

// readSection reads one table or stream at off and returns its trailer.
func (d *Document) readSection(off int64) (Dict, error) {
	b := d.data[off:]
	if j := bytes.IndexFunc(b, func(r rune) bool { return !isSpace(byte(r)) }); j > 0 && j < 64 {
		b = b[j:]
	}
	if bytes.HasPrefix(b, []byte("xref")) {
		return d.readTable(b[4:])
	}
	p := d.newParser(b)
	obj, err := p.indirect()
	if err != nil {
		return nil, err
	}
	s, ok := obj.(*Stream)
	if !ok || s.Dict["Type"] != Name("XRef") {
		return nil, errorf("no cross-reference section at %d", off)
	}
	return s.Dict, d.readXrefStream(s)
}

func (d *Document) readTable(b []byte) (Dict, error) {
	lx := newSliceLexer(b)
	for {
		if d.tokens += 2; d.tokens > d.lim.MaxTokens {
			return nil, &LimitError{Limit: "tokens", Max: d.lim.MaxTokens}
		}
		t := lx.token()
		if t.kind == tKeyword && string(lx.scratch) == "trailer" {
			break
		}
		if t.kind != tInt {
			return nil, errorf("cross-reference table is malformed")
		}
		start := t.i
		t = lx.token()
		if t.kind != tInt || start < 0 || t.i < 0 || start+t.i > 1<<24 {
			return nil, errorf("cross-reference subsection is malformed")
		}
		// Tables count against the budget too: a thousand sections
		// can each reach to the end of the file.
		for k := int64(0); k < t.i; k++ {
			if d.tokens += 3; d.tokens > d.lim.MaxTokens {
				return nil, &LimitError{Limit: "tokens", Max: d.lim.MaxTokens}
			}
			o, g, f := lx.token(), lx.token(), lx.token()
			if o.kind != tInt || g.kind != tInt || f.kind != tKeyword {
				return nil, errorf("cross-reference entry is malformed")
			}
			num := int(start + k)
			if _, have := d.xref[num]; have {
				continue
			}
			switch string(lx.scratch) {
			case "n":
				d.xref[num] = xrefEntry{offset: o.i}
			case "f":
				d.xref[num] = xrefEntry{offset: -1}
			default:
				return nil, errorf("cross-reference entry is malformed")
			}
		}
	}
	p := d.newParser(nil)
	p.lx = lx
	o, _, err := p.object(0)
	if err != nil {
		return nil, err
	}
	trailer, ok := o.(Dict)
	if !ok {
		return nil, errorf("trailer is not a dictionary")
	}
	return trailer, nil
}

func (d *Document) readXrefStream(s *Stream) error {
	data, err := d.decodeAll(s)
	if err != nil {
		return err
	}
	w, _ := s.Dict["W"].(Array)
	if len(w) != 3 {
		return errorf("cross-reference stream has a bad /W")
	}
	var widths [3]int
	total := 0
	for i, o := range w {
		n, ok := o.(int64)
		if !ok || n < 0 || n > 8 {
			return errorf("cross-reference stream has a bad /W")
		}
		widths[i] = int(n)
		total += int(n)
	}
	if total == 0 {
		return errorf("cross-reference stream has a bad /W")
	}
	size, _ := s.Dict["Size"].(int64)
	index := Array{int64(0), size}
	if a, ok := s.Dict["Index"].(Array); ok && len(a)%2 == 0 {
		index = a
	}
	field := func(b []byte, def int64) int64 {
		if len(b) == 0 {
			return def
		}
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v
	}
	for i := 0; i+1 < len(index); i += 2 {
		start, _ := index[i].(int64)
		count, _ := index[i+1].(int64)
		if start < 0 || count < 0 || start+count > 1<<24 {
			return errorf("cross-reference stream has a bad /Index")
		}
		for k := int64(0); k < count && len(data) >= total; k++ {
			row := data[:total]
			data = data[total:]
			typ := field(row[:widths[0]], 1)
			f2 := field(row[widths[0]:widths[0]+widths[1]], 0)
			f3 := field(row[widths[0]+widths[1]:], 0)
			num := int(start + k)
			if _, have := d.xref[num]; have {
				continue
			}
			switch typ {
			case 0:
				d.xref[num] = xrefEntry{offset: -1}
			case 1:
				d.xref[num] = xrefEntry{offset: f2}
			case 2:
				d.xref[num] = xrefEntry{stm: int(f2), index: int(f3), inStm: true}
			}
		}
	}
	return nil
}

// rebuildXref finds every "N G obj" in the file, as readers do for a
// file whose table is missing or wrong, and takes the last trailer (or
// the catalog it finds) for the document's root. Objects in object
// streams are indexed from those streams.
func (d *Document) rebuildXref() error {
	d.xref = map[int]xrefEntry{}
	d.cache = map[int]Object{}
	d.trailer = nil
	data := d.data
	var stms []int
	for i := 0; i < len(data); {
		j := bytes.Index(data[i:], []byte("obj"))
		if j < 0 {
			break
		}
		at := i + j
		i = at + 3
		num, start, ok := objHeaderBefore(data, at)
		if !ok {
			continue
		}
		d.xref[num] = xrefEntry{offset: int64(start)}
		if bytes.Contains(data[at:min(len(data), at+200)], []byte("/ObjStm")) {
			stms = append(stms, num)
		}
	}
	for _, num := range stms {
		s, ok := d.resolve(Ref{Num: num}).(*Stream)
		if !ok {
			continue
		}
		st, err := d.objStm(num, s)
		if err != nil {
			continue
		}
		for k, n := range st.nums {
			if _, have := d.xref[n]; !have {
				d.xref[n] = xrefEntry{stm: num, index: k, inStm: true}
			}
		}
	}
	if i := bytes.LastIndex(data, []byte("trailer")); i >= 0 {
		p := d.newParser(data[i+len("trailer"):])
		if o, _, err := p.object(0); err == nil {
			if t, ok := o.(Dict); ok {
				d.trailer = t
			}
		}
	}
	if d.trailer == nil || d.resolveDict(d.trailer["Root"]) == nil {
		// No usable trailer: find the catalog among the objects.
		for num := range d.xref {
			if dict := d.resolveDict(Ref{Num: num}); dict != nil && dict["Type"] == Name("Catalog") {
				d.trailer = Dict{"Root": Ref{Num: num}}
				break
			}
		}
	}
	if d.trailer == nil {
		return errorf("no document catalog found")
	}
	return nil
}

// objHeaderBefore reads "N G " before the "obj" at at, returning the
// object number and the header's start.
func objHeaderBefore(data []byte, at int) (num, start int, ok bool) {
	if at+3 < len(data) && isRegular(data[at+3]) {
		return 0, 0, false // "objects", "endobj" are handled by the space check below
	}
	i := at - 1
	skipSp := func() {
		for i >= 0 && isSpace(data[i]) {
			i--
		}
	}
	digits := func() (int, bool) {
		end := i
		for i >= 0 && data[i] >= '0' && data[i] <= '9' {
			i--
		}
		if i == end || end-i > 10 {
			return 0, false
		}
		v, err := strconv.Atoi(string(data[i+1 : end+1]))
		return v, err == nil
	}
	if i < 0 || !isSpace(data[i]) {
		return 0, 0, false
	}
	skipSp()
	if _, ok := digits(); !ok {
		return 0, 0, false
	}
	if i < 0 || !isSpace(data[i]) {
		return 0, 0, false
	}
	skipSp()
	n, ok := digits()
	if !ok || i >= 0 && isRegular(data[i]) {
		return 0, 0, false
	}
	return n, i + 1, true
}
