package imageconv

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// exifFacts are the facts read from an EXIF block (or a TIFF file's first
// directory, which has the same structure): what a person would say of a
// photograph without looking at it. The reader looks up the tags it wants
// by number and nothing else; it never follows the GPS directory's
// pointer (tag 0x8825), so no location can come out of it, whatever the
// file holds.
type exifFacts struct {
	Make, Model, Software string
	// Taken is DateTimeOriginal, else DateTimeDigitized, as
	// "2024-03-01 18:00:00", with OffsetTimeOriginal appended when the
	// file gives it.
	Taken string
	// Orientation is 1 to 8, or 0 when absent or out of range.
	Orientation int
}

// The tags read. Everything else is skipped by number.
const (
	tagMake              = 0x010F
	tagModel             = 0x0110
	tagOrientation       = 0x0112
	tagSoftware          = 0x0131
	tagExifIFD           = 0x8769
	tagDateTimeOriginal  = 0x9003
	tagDateTimeDigitized = 0x9004
	tagOffsetTimeOrig    = 0x9011
)

// maxIFDEntries bounds the entries read from one directory; real files
// have a few dozen.
const maxIFDEntries = 1000

// tiffReader reads a TIFF structure: a header and directories (IFDs).
type tiffReader struct {
	b   []byte
	ord binary.ByteOrder
}

// newTIFFReader checks the header of b and returns a reader and the offset
// of the first directory.
func newTIFFReader(b []byte) (*tiffReader, uint32, bool) {
	if len(b) < 8 {
		return nil, 0, false
	}
	var ord binary.ByteOrder
	switch string(b[:2]) {
	case "II":
		ord = binary.LittleEndian
	case "MM":
		ord = binary.BigEndian
	default:
		return nil, 0, false
	}
	if ord.Uint16(b[2:]) != 42 {
		return nil, 0, false
	}
	return &tiffReader{b: b, ord: ord}, ord.Uint32(b[4:]), true
}

// ifdEntry is one directory entry.
type ifdEntry struct {
	tag, typ uint16
	count    uint32
	value    []byte // the entry's 4 value bytes, or where they point
}

// entries returns the entries of the directory at off and the offset of
// the next directory (0 at the end); ok is false when the directory lies
// outside the data.
func (r *tiffReader) entries(off uint32, visit func(ifdEntry)) (next uint32, ok bool) {
	if int64(off)+2 > int64(len(r.b)) {
		return 0, false
	}
	n := int(r.ord.Uint16(r.b[off:]))
	if n > maxIFDEntries {
		return 0, false
	}
	start := int64(off) + 2
	end := start + int64(n)*12
	if end+4 > int64(len(r.b)) {
		return 0, false
	}
	for i := range n {
		e := r.b[start+int64(i)*12:]
		ent := ifdEntry{tag: r.ord.Uint16(e), typ: r.ord.Uint16(e[2:]), count: r.ord.Uint32(e[4:])}
		size := int64(typeSize(ent.typ)) * int64(ent.count)
		if size <= 4 {
			ent.value = e[8:12]
		} else if p := int64(r.ord.Uint32(e[8:])); p+size <= int64(len(r.b)) {
			ent.value = r.b[p : p+size]
		}
		if visit != nil {
			visit(ent)
		}
	}
	return r.ord.Uint32(r.b[end:]), true
}

// typeSize is the size in bytes of one value of a TIFF field type; 0 for
// unknown types, whose values are then never read.
func typeSize(typ uint16) int {
	switch typ {
	case 1, 2, 6, 7: // BYTE, ASCII, SBYTE, UNDEFINED
		return 1
	case 3, 8: // SHORT, SSHORT
		return 2
	case 4, 9, 11: // LONG, SLONG, FLOAT
		return 4
	case 5, 10, 12: // RATIONAL, SRATIONAL, DOUBLE
		return 8
	}
	return 0
}

// short returns an entry's first SHORT (or LONG) value.
func (r *tiffReader) short(e ifdEntry) (uint32, bool) {
	switch {
	case e.typ == 3 && len(e.value) >= 2:
		return uint32(r.ord.Uint16(e.value)), true
	case e.typ == 4 && len(e.value) >= 4:
		return r.ord.Uint32(e.value), true
	}
	return 0, false
}

// readEXIF reads the facts of a TIFF structure: an EXIF block without its
// "Exif\0\0" prefix, or a whole TIFF file.
func readEXIF(b []byte) exifFacts {
	var f exifFacts
	r, off, ok := newTIFFReader(b)
	if !ok {
		return f
	}
	var exifIFD uint32
	r.entries(off, func(e ifdEntry) {
		switch e.tag {
		case tagMake:
			f.Make = asciiValue(e)
		case tagModel:
			f.Model = asciiValue(e)
		case tagSoftware:
			f.Software = asciiValue(e)
		case tagOrientation:
			if v, ok := r.short(e); ok && v >= 1 && v <= 8 {
				f.Orientation = int(v)
			}
		case tagExifIFD:
			if v, ok := r.short(e); ok {
				exifIFD = v
			}
		}
	})
	if exifIFD != 0 && exifIFD != off {
		var original, digitized, offset string
		r.entries(exifIFD, func(e ifdEntry) {
			switch e.tag {
			case tagDateTimeOriginal:
				original = exifDate(asciiValue(e))
			case tagDateTimeDigitized:
				digitized = exifDate(asciiValue(e))
			case tagOffsetTimeOrig:
				offset = asciiValue(e)
			}
		})
		switch {
		case original != "":
			f.Taken = original
			if len(offset) == 6 && (offset[0] == '+' || offset[0] == '-') && offset[3] == ':' {
				f.Taken += " " + offset
			}
		case digitized != "":
			f.Taken = digitized
		}
	}
	return f
}

// asciiValue returns an ASCII entry's text: up to its first NUL, printable
// ASCII only, trimmed, at most 64 bytes. Makers pad with spaces and NULs,
// and a hostile file may put anything there.
func asciiValue(e ifdEntry) string {
	if e.typ != 2 {
		return ""
	}
	v := e.value
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	var b strings.Builder
	for _, c := range v {
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		}
		if b.Len() >= 64 {
			break
		}
	}
	return strings.TrimSpace(b.String())
}

// exifDate turns "2024:03:01 18:00:00" into "2024-03-01 18:00:00", and
// anything else (blank dates are "0000:00:00 00:00:00" or spaces) into "".
func exifDate(s string) string {
	if len(s) != 19 || s[4] != ':' || s[7] != ':' || s[10] != ' ' || strings.HasPrefix(s, "0000") {
		return ""
	}
	for i, c := range []byte(s) {
		switch i {
		case 4, 7, 10, 13, 16:
		default:
			if c < '0' || c > '9' {
				return ""
			}
		}
	}
	return s[:4] + "-" + s[5:7] + "-" + s[8:]
}

// tiffPages counts the directories of a TIFF file (its pages), up to max;
// a directory chain that loops is counted once around.
func tiffPages(b []byte, max int) int {
	r, off, ok := newTIFFReader(b)
	if !ok {
		return 0
	}
	seen := map[uint32]bool{}
	n := 0
	for off != 0 && !seen[off] && n < max {
		seen[off] = true
		next, ok := r.entries(off, nil)
		if !ok {
			break
		}
		n++
		off = next
	}
	return n
}
