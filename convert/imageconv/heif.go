package imageconv

import (
	"encoding/binary"
	"errors"
)

// heifFile is what the container of a HEIC or AVIF file says, read in Go
// before any decoder runs: the primary picture's codec and size (so a
// bomb is refused from its header), its rotation and mirroring, the
// number of pictures, and the EXIF block. The reader follows ISO/IEC
// 14496-12 (boxes) and 23008-12 (HEIF items); it reads only the boxes it
// needs, bounds every count by the bytes that hold it, and never
// allocates by a declared size.
type heifFile struct {
	// Codec is "hvc1" (HEVC: HEIC) or "av01" (AV1: AVIF) for the
	// primary item or, for a grid, its first tile; else the item's type.
	Codec string
	// Width and Height are the primary item's stored size (ispe), before
	// rotation; 0 when the file has no still image (a bare sequence).
	Width, Height int
	// Rotation is the primary item's anticlockwise rotation (irot) in
	// quarter turns; Mirror is its imir mode + 1 (1: top to bottom, 2: left
	// to right, as libheif and libavif read the field), 0 for none.
	Rotation, Mirror int
	// Images counts the top-level pictures: not hidden, not thumbnails,
	// not auxiliary (alpha, depth) pictures.
	Images int
	// Frames counts the samples of the longest image sequence track, 0
	// without one.
	Frames int
	// TrackWidth and TrackHeight are a sequence track's size, for a file
	// with no still image.
	TrackWidth, TrackHeight int
	// Exif is the EXIF block (a TIFF structure), nil when absent.
	Exif []byte
}

var errHEIF = errors.New("malformed HEIF container")

// maxHEIFItems bounds the items and properties read; phone pictures have
// about a hundred (a 48-tile grid, its thumbnail, EXIF, depth map).
const maxHEIFItems = 10_000

type box struct {
	typ     string
	payload []byte
}

// boxes splits b into boxes, stopping at the first malformed one.
func boxes(b []byte, visit func(box) bool) error {
	for len(b) > 0 {
		if len(b) < 8 {
			return errHEIF
		}
		size := uint64(binary.BigEndian.Uint32(b))
		typ := string(b[4:8])
		hdr := uint64(8)
		switch size {
		case 0:
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return errHEIF
			}
			size = binary.BigEndian.Uint64(b[8:])
			hdr = 16
		}
		if size < hdr || size > uint64(len(b)) {
			return errHEIF
		}
		if !visit(box{typ: typ, payload: b[hdr:size]}) {
			return nil
		}
		b = b[size:]
	}
	return nil
}

// fullBox splits a FullBox payload into its version, flags and body.
func fullBox(p []byte) (version int, flags uint32, body []byte, ok bool) {
	if len(p) < 4 {
		return 0, 0, nil, false
	}
	return int(p[0]), uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3]), p[4:], true
}

// cursor reads big-endian fields, remembering whether it ran out.
type cursor struct {
	b   []byte
	bad bool
}

func (c *cursor) n(size int) uint64 {
	if size == 0 {
		return 0
	}
	if len(c.b) < size {
		c.bad = true
		c.b = nil
		return 0
	}
	var v uint64
	for _, x := range c.b[:size] {
		v = v<<8 | uint64(x)
	}
	c.b = c.b[size:]
	return v
}

func (c *cursor) u8() uint64  { return c.n(1) }
func (c *cursor) u16() uint64 { return c.n(2) }
func (c *cursor) u32() uint64 { return c.n(4) }

// u16or32 reads a field of 16 bits when short, else of 32: the size a
// box's version gives it.
func (c *cursor) u16or32(short bool) uint64 {
	if short {
		return c.u16()
	}
	return c.u32()
}

type heifItem struct {
	typ    string
	hidden bool
	props  []int // 1-based indexes into ipco
	loc    []extent
	method int // iloc construction method: 0 file offset, 1 idat
}

type extent struct{ off, len uint64 }

// parseHEIF reads the container of a HEIC or AVIF file.
func parseHEIF(data []byte) (*heifFile, error) {
	var meta, moov []byte
	if err := boxes(data, func(bx box) bool {
		switch bx.typ {
		case "meta":
			meta = bx.payload
		case "moov":
			moov = bx.payload
		}
		return true
	}); err != nil && meta == nil && moov == nil {
		return nil, err
	}
	f := &heifFile{}
	if moov != nil {
		f.readMoov(moov)
	}
	if meta == nil {
		if f.Frames == 0 {
			return nil, errHEIF
		}
		return f, nil
	}
	_, _, body, ok := fullBox(meta)
	if !ok {
		return nil, errHEIF
	}
	items := map[uint32]*heifItem{}
	item := func(id uint32) *heifItem {
		it := items[id]
		if it == nil && len(items) < maxHEIFItems {
			it = &heifItem{}
			items[id] = it
		}
		return it
	}
	var primary uint32
	var props []box
	var idat []byte
	refs := map[string][][2]uint32{} // type → (from, to) pairs
	bad := false
	if err := boxes(body, func(bx box) bool {
		switch bx.typ {
		case "pitm":
			v, _, p, ok := fullBox(bx.payload)
			c := cursor{b: p}
			primary = uint32(c.u16or32(v == 0))
			bad = bad || !ok || c.bad
		case "iinf":
			bad = bad || !readIinf(bx.payload, item)
		case "iloc":
			bad = bad || !readIloc(bx.payload, item)
		case "iref":
			bad = bad || !readIref(bx.payload, refs)
		case "idat":
			idat = bx.payload
		case "iprp":
			bad = bad || !readIprp(bx.payload, &props, item)
		}
		return !bad
	}); err != nil || bad {
		return nil, errHEIF
	}
	p := items[primary]
	if p == nil {
		return nil, errHEIF
	}
	f.Codec = p.typ
	if p.typ == "grid" || p.typ == "iden" || p.typ == "iovl" {
		for _, r := range refs["dimg"] {
			if r[0] == primary && items[r[1]] != nil {
				f.Codec = items[r[1]].typ
				break
			}
		}
	}
	for _, i := range p.props {
		if i < 1 || i > len(props) {
			continue
		}
		pr := props[i-1]
		switch pr.typ {
		case "ispe":
			_, _, b, ok := fullBox(pr.payload)
			if ok && len(b) >= 8 {
				f.Width = int(binary.BigEndian.Uint32(b))
				f.Height = int(binary.BigEndian.Uint32(b[4:]))
			}
		case "irot":
			if len(pr.payload) >= 1 {
				f.Rotation = int(pr.payload[0] & 3)
			}
		case "imir":
			if len(pr.payload) >= 1 {
				f.Mirror = int(pr.payload[0]&1) + 1
			}
		}
	}
	notTop := map[uint32]bool{}
	for _, typ := range []string{"thmb", "auxl", "dimg", "cdsc", "base"} {
		for _, r := range refs[typ] {
			if typ == "dimg" {
				notTop[r[1]] = true // a grid's tiles
			} else {
				notTop[r[0]] = true // a thumbnail, alpha plane, metadata
			}
		}
	}
	for id, it := range items {
		switch it.typ {
		case "hvc1", "av01", "grid", "iden", "iovl", "jpeg", "j2k1", "unci", "avc1":
			if !it.hidden && !notTop[id] {
				f.Images++
			}
		case "Exif":
			if f.Exif == nil {
				f.Exif = itemData(data, idat, it, 1<<20)
			}
		}
	}
	if len(f.Exif) >= 4 {
		// The item starts with the offset of the TIFF header in what
		// follows (ISO/IEC 23008-12, annex A), usually 6 for "Exif\0\0".
		skip := uint64(binary.BigEndian.Uint32(f.Exif))
		if skip <= uint64(len(f.Exif)-4) {
			f.Exif = f.Exif[4+skip:]
		} else {
			f.Exif = nil
		}
	}
	return f, nil
}

// itemData returns an item's bytes, joined from its extents, or nil when
// they lie outside the file or exceed max bytes.
func itemData(file, idat []byte, it *heifItem, max uint64) []byte {
	src := file
	if it.method == 1 {
		src = idat
	} else if it.method != 0 {
		return nil
	}
	var total uint64
	for _, e := range it.loc {
		total += e.len
		if e.len > max || total > max || e.off > uint64(len(src)) || e.len > uint64(len(src))-e.off {
			return nil
		}
	}
	out := make([]byte, 0, total)
	for _, e := range it.loc {
		out = append(out, src[e.off:e.off+e.len]...)
	}
	return out
}

func readIinf(p []byte, item func(uint32) *heifItem) bool {
	v, _, body, ok := fullBox(p)
	if !ok {
		return false
	}
	c := cursor{b: body}
	c.u16or32(v == 0)
	if c.bad {
		return false
	}
	return boxes(c.b, func(bx box) bool {
		if bx.typ != "infe" {
			return true
		}
		v, flags, b, ok := fullBox(bx.payload)
		if !ok || v < 2 {
			return true // versions 0 and 1 name no item type
		}
		c := cursor{b: b}
		id := uint32(c.u16or32(v == 2))
		c.u16() // protection index
		typ := c.n(4)
		if c.bad {
			return true
		}
		if it := item(id); it != nil {
			it.typ = string([]byte{byte(typ >> 24), byte(typ >> 16), byte(typ >> 8), byte(typ)})
			it.hidden = flags&1 != 0
		}
		return true
	}) == nil
}

func readIloc(p []byte, item func(uint32) *heifItem) bool {
	v, _, body, ok := fullBox(p)
	if !ok || v > 2 {
		return false
	}
	c := cursor{b: body}
	a := c.u8()
	b := c.u8()
	offSize, lenSize, baseSize := int(a>>4), int(a&15), int(b>>4)
	idxSize := 0
	if v >= 1 {
		idxSize = int(b & 15)
	}
	for _, s := range []int{offSize, lenSize, baseSize, idxSize} {
		if s != 0 && s != 4 && s != 8 {
			return false
		}
	}
	count := c.u16or32(v < 2)
	for i := uint64(0); i < count && !c.bad; i++ {
		id := uint32(c.u16or32(v < 2))
		method := 0
		if v >= 1 {
			method = int(c.u16() & 15)
		}
		c.u16() // data reference index
		base := c.n(baseSize)
		n := c.u16()
		it := item(id)
		for j := uint64(0); j < n && !c.bad; j++ {
			c.n(idxSize)
			off := c.n(offSize)
			length := c.n(lenSize)
			if it != nil && len(it.loc) < maxHEIFItems {
				it.loc = append(it.loc, extent{off: base + off, len: length})
			}
		}
		if it != nil {
			it.method = method
		}
	}
	return !c.bad
}

func readIref(p []byte, refs map[string][][2]uint32) bool {
	v, _, body, ok := fullBox(p)
	if !ok {
		return false
	}
	total := 0
	return boxes(body, func(bx box) bool {
		c := cursor{b: bx.payload}
		id := func() uint32 { return uint32(c.u16or32(v == 0)) }
		from := id()
		n := c.u16()
		for i := uint64(0); i < n && !c.bad && total < maxHEIFItems; i++ {
			refs[bx.typ] = append(refs[bx.typ], [2]uint32{from, id()})
			total++
		}
		return true
	}) == nil
}

func readIprp(p []byte, props *[]box, item func(uint32) *heifItem) bool {
	ok := true
	err := boxes(p, func(bx box) bool {
		switch bx.typ {
		case "ipco":
			ok = boxes(bx.payload, func(pr box) bool {
				*props = append(*props, pr)
				return len(*props) < maxHEIFItems
			}) == nil
		case "ipma":
			v, flags, body, fok := fullBox(bx.payload)
			if !fok {
				ok = false
				return false
			}
			c := cursor{b: body}
			count := c.u32()
			for i := uint64(0); i < count && !c.bad; i++ {
				id := uint32(c.u16or32(v < 1))
				n := c.u8()
				it := item(id)
				for j := uint64(0); j < n && !c.bad; j++ {
					var idx int
					if flags&1 != 0 {
						idx = int(c.u16() & 0x7fff)
					} else {
						idx = int(c.u8() & 0x7f)
					}
					if it != nil && len(it.props) < 256 {
						it.props = append(it.props, idx)
					}
				}
			}
			ok = ok && !c.bad
		}
		return ok
	})
	return ok && err == nil
}

// readMoov reads the sample count and size of the image sequence tracks
// of an AVIF or HEIF sequence.
func (f *heifFile) readMoov(moov []byte) {
	boxes(moov, func(trak box) bool {
		if trak.typ != "trak" {
			return true
		}
		var w, h, frames int
		boxes(trak.payload, func(bx box) bool {
			switch bx.typ {
			case "tkhd":
				v, _, b, ok := fullBox(bx.payload)
				// Width and height are the last two 16.16 fields.
				if ok && (v == 0 && len(b) >= 80 || v == 1 && len(b) >= 92) {
					w = int(binary.BigEndian.Uint32(b[len(b)-8:]) >> 16)
					h = int(binary.BigEndian.Uint32(b[len(b)-4:]) >> 16)
				}
			case "mdia":
				frames = max(frames, sampleCount(bx.payload))
			}
			return true
		})
		if frames > f.Frames {
			f.Frames, f.TrackWidth, f.TrackHeight = frames, w, h
		}
		return true
	})
}

// sampleCount finds mdia/minf/stbl/stsz and returns its sample count.
func sampleCount(mdia []byte) int {
	n := 0
	path := []string{"minf", "stbl", "stsz"}
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		boxes(b, func(bx box) bool {
			if bx.typ != path[depth] {
				return true
			}
			if depth < len(path)-1 {
				walk(bx.payload, depth+1)
				return false
			}
			if _, _, body, ok := fullBox(bx.payload); ok && len(body) >= 8 {
				n = int(min(binary.BigEndian.Uint32(body[4:]), 1<<30))
			}
			return false
		})
	}
	walk(mdia, 0)
	return n
}
