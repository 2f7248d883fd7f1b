package pdf

import (
	"strings"
)

// font decodes a font's codes to text and widths.
type font struct {
	composite bool  // Type0: codes through an encoding CMap to CIDs
	enc       *cmap // Type0's encoding CMap
	toUni     *cmap // ToUnicode, when present
	simple    [256]string
	// Widths in text space units per unit of font size (glyph space
	// divided by 1000, or scaled by a Type 3 font's matrix).
	widths    map[uint32]float64
	simpleW   [256]float64
	hasWidths bool
	dw        float64
	vertical  bool
	// symbolic: a simple font without a usable encoding, whose codes are
	// read as Latin-1 (after removing the 0xF000 offset of symbol fonts).
	symbolic bool
}

// maxWidths caps the entries read from a /W array.
const maxWidths = 1 << 17

// loadFont reads a font. A CMap that does not decode leaves the font
// without it; one that does not decrypt, or runs into a limit, is an
// error.
func (d *Document) loadFont(o Object) (*font, error) {
	fd := d.resolveDict(o)
	f := &font{dw: 1}
	if fd == nil {
		f.symbolic = true
		return f, nil
	}
	subtype, _ := d.resolve(fd["Subtype"]).(Name)
	if tu, ok := d.resolve(fd["ToUnicode"]).(*Stream); ok {
		data, err := d.decodeAll(tu)
		if isFatal(err) {
			return nil, err
		}
		if err == nil {
			f.toUni = d.parseCMap(data)
		}
	}
	if subtype == "Type0" {
		f.composite = true
		switch e := d.resolve(fd["Encoding"]).(type) {
		case Name:
			f.vertical = strings.HasSuffix(string(e), "-V")
			switch {
			case e == "Identity-H" || e == "Identity-V":
				f.enc = &cmap{identity: true, space: []codeRange{{n: 2, lo: 0, hi: 0xffff}}}
			case strings.HasPrefix(string(e), "Uni") && (strings.Contains(string(e), "UCS2") || strings.Contains(string(e), "UTF16")):
				f.enc = &cmap{identity: true, utf16: true, space: []codeRange{{n: 2, lo: 0, hi: 0xffff}}}
			default:
				f.enc = &cmap{identity: true, space: []codeRange{{n: 2, lo: 0, hi: 0xffff}}}
			}
		case *Stream:
			data, err := d.decodeAll(e)
			if isFatal(err) {
				return nil, err
			}
			if err == nil {
				f.enc = d.parseCMap(data)
				if v, _ := d.resolve(e.Dict["WMode"]).(int64); v == 1 {
					f.vertical = true
				}
			}
		}
		if f.enc == nil {
			f.enc = &cmap{identity: true, space: []codeRange{{n: 2, lo: 0, hi: 0xffff}}}
		}
		desc := d.resolveArray(fd["DescendantFonts"])
		if len(desc) > 0 {
			cf := d.resolveDict(desc[0])
			if v, ok := d.resolveNum(cf["DW"]); ok {
				f.dw = v / 1000
			}
			f.widths = d.cidWidths(d.resolveArray(cf["W"]))
			f.hasWidths = true
		}
		return f, nil
	}

	// A simple font: one byte a code.
	scale := 0.001
	if subtype == "Type3" {
		if m := d.resolveArray(fd["FontMatrix"]); len(m) >= 1 {
			if v, ok := d.resolveNum(m[0]); ok && v > 0 && v < 1 {
				scale = v
			}
		}
	}
	if ws := d.resolveArray(fd["Widths"]); len(ws) > 0 {
		first, _ := d.resolveNum(fd["FirstChar"])
		for i, w := range ws {
			c := int(first) + i
			if c < 0 || c > 255 {
				continue
			}
			v, _ := d.resolveNum(w)
			f.simpleW[c] = v * scale
		}
		f.hasWidths = true
	}
	base := Name("")
	var diffs Array
	switch e := d.resolve(fd["Encoding"]).(type) {
	case Name:
		base = e
	case Dict:
		base, _ = d.resolve(e["BaseEncoding"]).(Name)
		diffs = d.resolveArray(e["Differences"])
	}
	flags := 0.0
	if desc := d.resolveDict(fd["FontDescriptor"]); desc != nil {
		flags, _ = d.resolveNum(desc["Flags"])
	}
	symbolicFlag := int(flags)&4 != 0
	if base == "" && symbolicFlag && diffs == nil && f.toUni == nil {
		f.symbolic = true
	}
	if base == "" && subtype == "TrueType" {
		base = "WinAnsiEncoding"
	}
	f.simple = *baseEncoding(base)
	code := 0
	for _, o := range diffs {
		switch v := d.resolve(o).(type) {
		case int64:
			code = int(v)
		case Name:
			if code >= 0 && code < 256 {
				if t := glyphText(string(v)); t != "" {
					f.simple[code] = t
				} else {
					f.simple[code] = "\uFFFD"
				}
			}
			code++
		}
	}
	return f, nil
}

// cidWidths reads a /W array: "c [w1 w2 …]" and "c1 c2 w" entries.
func (d *Document) cidWidths(w Array) map[uint32]float64 {
	out := map[uint32]float64{}
	for i := 0; i < len(w) && len(out) < maxWidths; {
		first, ok := d.resolveNum(w[i])
		if !ok || first < 0 || first > 0xffffffff || i+1 >= len(w) {
			break
		}
		switch v := d.resolve(w[i+1]).(type) {
		case Array:
			for k, e := range v {
				x, _ := d.resolveNum(e)
				out[uint32(first)+uint32(k)] = x / 1000
			}
			i += 2
		default:
			last, ok := num(v)
			if !ok || i+2 >= len(w) {
				return out
			}
			x, _ := d.resolveNum(w[i+2])
			// Counted in integers: a float past 2^53 does not grow by
			// one, and the loop would not end.
			if last >= first {
				for c := uint64(first); c <= uint64(min(last, first+maxWidths)) && len(out) < maxWidths; c++ {
					out[uint32(c)] = x / 1000
				}
			}
			i += 3
		}
	}
	return out
}

// glyph is one decoded code of a shown string.
type glyph struct {
	text  string
	width float64 // in units of font size; 0 when not known
	space bool    // the single-byte code 32, which word spacing applies to
	n     int     // bytes of the code
}

// next decodes the first code of s.
func (f *font) next(s []byte) glyph {
	if f.composite {
		code, n := f.enc.nextCode(s, 2)
		g := glyph{n: n}
		if f.toUni != nil {
			if t, ok := f.toUni.text(code); ok {
				g.text = t
			}
		}
		if g.text == "" && f.enc.utf16 {
			g.text = utf16Text(s[:n])
		}
		cid := f.enc.cid(code)
		if w, ok := f.widths[cid]; ok {
			g.width = w
		} else {
			g.width = f.dw
		}
		g.space = n == 1 && code == 32
		return g
	}
	c := s[0]
	g := glyph{n: 1, space: c == 32, width: f.simpleW[c]}
	if f.toUni != nil {
		if t, ok := f.toUni.text(uint32(c)); ok {
			g.text = t
			return g
		}
	}
	if f.symbolic {
		if c >= 0x20 {
			g.text = string(rune(c))
		}
		return g
	}
	g.text = f.simple[c]
	return g
}
