package imageconv

import (
	"bytes"
	"encoding/binary"
)

// gifFrames counts the frames of a GIF by walking its blocks, without
// decompressing any: image/gif's DecodeAll would decode every frame to
// count them. It stops at max.
func gifFrames(b []byte, max int) int {
	if len(b) < 13 {
		return 0
	}
	p := 13
	if b[10]&0x80 != 0 { // global colour table
		p += 3 << (b[10]&7 + 1)
	}
	n := 0
	skipSubBlocks := func() bool {
		for p < len(b) {
			size := int(b[p])
			p += 1 + size
			if size == 0 {
				return true
			}
		}
		return false
	}
	for p < len(b) && n < max {
		switch b[p] {
		case 0x21: // extension: label, then sub-blocks
			p += 2
			if !skipSubBlocks() {
				return n
			}
		case 0x2C: // image descriptor
			if p+10 > len(b) {
				return n
			}
			flags := b[p+9]
			p += 10
			if flags&0x80 != 0 { // local colour table
				p += 3 << (flags&7 + 1)
			}
			p++ // LZW minimum code size
			if !skipSubBlocks() {
				return n + 1 // a cut last frame still counts: the decoder may show part of it
			}
			n++
		default: // 0x3B trailer, or garbage
			return n
		}
	}
	return n
}

// pngFrames returns the frame count of an animated PNG (its acTL chunk),
// or 0 for a still PNG. The chunk must come before the image data.
func pngFrames(b []byte) int {
	p := 8
	for p+8 <= len(b) {
		n := int(binary.BigEndian.Uint32(b[p:]))
		typ := string(b[p+4 : p+8])
		switch typ {
		case "acTL":
			if n >= 8 && p+16 <= len(b) {
				return int(min(binary.BigEndian.Uint32(b[p+8:]), 1<<30))
			}
			return 0
		case "IDAT", "IEND":
			return 0
		}
		if n < 0 || n > len(b) {
			return 0
		}
		p += 12 + n
	}
	return 0
}

// pngEXIF returns the content of a PNG's eXIf chunk, nil when absent.
func pngEXIF(b []byte) []byte {
	p := 8
	for p+8 <= len(b) {
		n := int(binary.BigEndian.Uint32(b[p:]))
		if n < 0 || n > len(b)-p-12 {
			return nil
		}
		switch string(b[p+4 : p+8]) {
		case "eXIf":
			return b[p+8 : p+8+n]
		case "IEND":
			return nil
		}
		p += 12 + n
	}
	return nil
}

// jpegEXIF returns the TIFF structure of a JPEG's EXIF (APP1) segment,
// nil when absent. It reads the segments before the first scan.
func jpegEXIF(b []byte) []byte {
	p := 2
	for p+4 <= len(b) {
		if b[p] != 0xFF {
			return nil
		}
		marker := b[p+1]
		if marker == 0xFF { // fill byte
			p++
			continue
		}
		if marker == 0xDA || marker == 0xD9 { // start of scan, end of image
			return nil
		}
		n := int(binary.BigEndian.Uint16(b[p+2:]))
		if n < 2 || p+2+n > len(b) {
			return nil
		}
		seg := b[p+4 : p+2+n]
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return seg[6:]
		}
		p += 2 + n
	}
	return nil
}

// riffChunk is one chunk of a WebP file.
type riffChunk struct {
	id   string
	data []byte
	raw  []byte // header, data and padding, as in the file
}

// webpChunks returns the chunks of a WebP file (after "RIFF size WEBP").
func webpChunks(b []byte, visit func(riffChunk) bool) {
	if len(b) < 12 {
		return
	}
	p := 12
	for p+8 <= len(b) {
		n := int(binary.LittleEndian.Uint32(b[p+4:]))
		if n < 0 || n > len(b)-p-8 {
			return
		}
		end := p + 8 + n + n&1
		c := riffChunk{id: string(b[p : p+4]), data: b[p+8 : p+8+n], raw: b[p:min(end, len(b))]}
		if !visit(c) {
			return
		}
		p = end
	}
}

// webpInfo returns a WebP's frame count (0 for a still image), its EXIF
// and, for an animation, the first frame as a still WebP file with its
// offset and the canvas size.
type webpAnim struct {
	frames         int
	exif           []byte
	first          []byte // a still WebP of the first frame; nil if still
	x, y, w, h     int    // the first frame's place on the canvas
	canvasW, canvH int
}

func readWebP(b []byte, maxFrames int) webpAnim {
	var a webpAnim
	webpChunks(b, func(c riffChunk) bool {
		switch c.id {
		case "VP8X":
			if len(c.data) >= 10 {
				a.canvasW = int(uint32(c.data[4])|uint32(c.data[5])<<8|uint32(c.data[6])<<16) + 1
				a.canvH = int(uint32(c.data[7])|uint32(c.data[8])<<8|uint32(c.data[9])<<16) + 1
			}
		case "EXIF":
			a.exif = c.data
			// Some writers keep the JPEG APP1 prefix.
			a.exif = bytes.TrimPrefix(a.exif, []byte("Exif\x00\x00"))
		case "ANMF":
			a.frames++
			if a.frames == 1 && len(c.data) >= 16 {
				d := c.data
				u24 := func(p []byte) int { return int(uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16) }
				a.x, a.y = 2*u24(d[0:]), 2*u24(d[3:])
				a.w, a.h = u24(d[6:])+1, u24(d[9:])+1
				a.first = stillWebP(d[16:], a.w, a.h)
			}
		}
		return a.frames < maxFrames
	})
	return a
}

// stillWebP wraps a frame's chunks (ALPH and VP8, or VP8L) as a still WebP
// of w × h pixels, which x/image/webp decodes.
func stillWebP(frame []byte, w, h int) []byte {
	var body bytes.Buffer
	hasAlpha := bytes.Contains(frame[:min(len(frame), 4)], []byte("ALPH"))
	if hasAlpha {
		vp8x := make([]byte, 18)
		copy(vp8x, "VP8X")
		binary.LittleEndian.PutUint32(vp8x[4:], 10)
		vp8x[8] = 0x10 // alpha
		put24 := func(p []byte, v int) { p[0], p[1], p[2] = byte(v), byte(v>>8), byte(v>>16) }
		put24(vp8x[12:], w-1)
		put24(vp8x[15:], h-1)
		body.Write(vp8x)
	}
	body.Write(frame)
	out := make([]byte, 12, 12+body.Len())
	copy(out, "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(4+body.Len()))
	copy(out[8:], "WEBP")
	return append(out, body.Bytes()...)
}
