package pdf

import (
	"sort"
	"unicode/utf16"
)

// cmap is a parsed CMap: its code space (how many bytes a code takes)
// and what its codes map to, CIDs (an encoding CMap) or text (a
// ToUnicode CMap).
type cmap struct {
	space  []codeRange
	chars  map[uint32]string
	ranges []cmapRange // sorted by lo
	cids   map[uint32]uint32
	cidRng []cidRange
	// identity: a code's CID is the code (Identity-H and -V).
	identity bool
	// utf16: codes are UTF-16BE text (the predefined Uni…-UCS2 and
	// Uni…-UTF16 CMaps).
	utf16 bool
}

type codeRange struct {
	n      int
	lo, hi uint32
}

type cmapRange struct {
	lo, hi uint32
	base   []rune   // text of lo; the last rune counts up
	list   []string // or one text per code
}

type cidRange struct {
	lo, hi, cid uint32
}

// maxCMapEntries caps the entries read from one CMap.
const maxCMapEntries = 1 << 18

// parseCMap reads a CMap's operators; it never fails, keeping what it
// understood.
func (d *Document) parseCMap(data []byte) *cmap {
	c := &cmap{chars: map[uint32]string{}, cids: map[uint32]uint32{}}
	p := d.newParser(data)
	p.maxDepth, p.maxElems = 8, maxCMapEntries
	var stack []Object
	entries := 0
	for entries < maxCMapEntries {
		o, t, err := p.object(0)
		if err != nil || t.kind == tEOF {
			break
		}
		if t.kind != tKeyword || len(p.kw) == 0 {
			if len(stack) < 4 {
				stack = append(stack, o)
			} else {
				stack = append(stack[1:], o)
			}
			continue
		}
		kw := string(p.kw)
		stack = stack[:0]
		switch kw {
		case "begincodespacerange":
			for {
				a, ta, _ := p.object(0)
				if ta.kind != tString {
					break
				}
				b, _, _ := p.object(0)
				lo, hi := a.(String), asString(b)
				if len(lo) >= 1 && len(lo) <= 4 && len(hi) == len(lo) {
					c.space = append(c.space, codeRange{n: len(lo), lo: beUint(lo), hi: beUint(hi)})
				}
			}
		case "beginbfchar":
			p.cmapEntries(2, &entries, func(e [3]Object) {
				if dst, ok := e[1].(String); ok {
					c.chars[beUint(e[0].(String))] = utf16Text(dst)
				} else if n, ok := e[1].(Name); ok {
					c.chars[beUint(e[0].(String))] = glyphText(string(n))
				}
			})
		case "beginbfrange":
			p.cmapEntries(3, &entries, func(e [3]Object) {
				lo, hi := beUint(e[0].(String)), beUint(asString(e[1]))
				if hi < lo || hi-lo > 1<<16 {
					return
				}
				r := cmapRange{lo: lo, hi: hi}
				switch v := e[2].(type) {
				case String:
					r.base = []rune(utf16Text(v))
					if len(r.base) == 0 {
						return
					}
				case Array:
					for _, e := range v {
						r.list = append(r.list, utf16Text(asString(e)))
					}
					if len(r.list) == 0 {
						return // no text: and text() needs a list or a base
					}
				default:
					return
				}
				c.ranges = append(c.ranges, r)
			})
		case "begincidchar":
			p.cmapEntries(2, &entries, func(e [3]Object) {
				if n, ok := e[1].(int64); ok && n >= 0 {
					c.cids[beUint(e[0].(String))] = uint32(n)
				}
			})
		case "begincidrange":
			p.cmapEntries(3, &entries, func(e [3]Object) {
				cid, ok := e[2].(int64)
				lo, hi := beUint(e[0].(String)), beUint(asString(e[1]))
				if ok && cid >= 0 && hi >= lo {
					c.cidRng = append(c.cidRng, cidRange{lo: lo, hi: hi, cid: uint32(cid)})
				}
			})
		case "usecmap":
			// A predefined parent: only Identity is known here.
		}
	}
	sort.Slice(c.ranges, func(i, j int) bool { return c.ranges[i].lo < c.ranges[j].lo })
	sort.Slice(c.cidRng, func(i, j int) bool { return c.cidRng[i].lo < c.cidRng[j].lo })
	return c
}

// cmapEntries reads the entries of a begin…end section, each of n
// objects of which the first is a string, until an object that is not
// one (the section's end keyword) or the CMap's entries run out; fn gets
// each entry.
func (p *parser) cmapEntries(n int, entries *int, fn func(e [3]Object)) {
	for *entries < maxCMapEntries {
		var e [3]Object
		var t token
		if e[0], t, _ = p.object(0); t.kind != tString {
			return
		}
		for i := 1; i < n; i++ {
			e[i], _, _ = p.object(0)
		}
		*entries++
		fn(e)
	}
}

func asString(o Object) String {
	s, _ := o.(String)
	return s
}

func beUint(b []byte) uint32 {
	var v uint32
	for _, c := range b[:min(len(b), 4)] {
		v = v<<8 | uint32(c)
	}
	return v
}

// utf16Text decodes UTF-16BE text (what ToUnicode maps to).
func utf16Text(b []byte) string {
	if len(b) == 1 {
		return string(rune(b[0]))
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return string(utf16.Decode(u))
}

// nextCode reads one code from s by the code space: the shortest length
// whose range holds the bytes, else def bytes.
func (c *cmap) nextCode(s []byte, def int) (uint32, int) {
	if c != nil && len(c.space) > 0 {
		for n := 1; n <= 4 && n <= len(s); n++ {
			v := beUint(s[:n])
			for _, r := range c.space {
				if r.n == n && v >= r.lo && v <= r.hi {
					return v, n
				}
			}
		}
	}
	n := min(def, len(s))
	return beUint(s[:n]), n
}

// text returns a ToUnicode CMap's text of code.
func (c *cmap) text(code uint32) (string, bool) {
	if s, ok := c.chars[code]; ok {
		return s, true
	}
	i := sort.Search(len(c.ranges), func(i int) bool { return c.ranges[i].hi >= code })
	for ; i < len(c.ranges) && c.ranges[i].lo <= code; i++ {
		r := c.ranges[i]
		if code > r.hi {
			continue
		}
		off := code - r.lo
		if r.list != nil {
			if int(off) < len(r.list) {
				return r.list[off], true
			}
			continue
		}
		out := append([]rune(nil), r.base...)
		out[len(out)-1] += rune(off)
		return string(out), true
	}
	return "", false
}

// cid returns an encoding CMap's CID of code.
func (c *cmap) cid(code uint32) uint32 {
	if c == nil || c.identity {
		return code
	}
	if v, ok := c.cids[code]; ok {
		return v
	}
	i := sort.Search(len(c.cidRng), func(i int) bool { return c.cidRng[i].hi >= code })
	if i < len(c.cidRng) && c.cidRng[i].lo <= code {
		return c.cidRng[i].cid + code - c.cidRng[i].lo
	}
	return code
}
