package imageconv

import (
	"bytes"
	"testing"
)

// FuzzParseHEIF feeds the HEIF container reader mutated boxes: it must
// not panic, and what it returns must lie within the file.
func FuzzParseHEIF(f *testing.F) {
	box := func(typ string, payload ...[]byte) []byte {
		body := bytes.Join(payload, nil)
		n := 8 + len(body)
		return append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n), typ[0], typ[1], typ[2], typ[3]}, body...)
	}
	full := []byte{0, 0, 0, 0}
	infe := box("infe", []byte{2, 0, 0, 0}, []byte{0, 1, 0, 0}, []byte("hvc1"), []byte{0})
	exifInfe := box("infe", []byte{2, 0, 0, 0}, []byte{0, 2, 0, 0}, []byte("Exif"), []byte{0})
	iinf := box("iinf", full, []byte{0, 2}, infe, exifInfe)
	ispe := box("ispe", full, []byte{0, 0, 1, 0, 0, 0, 0, 128})
	irot := box("irot", []byte{1})
	ipma := box("ipma", full, []byte{0, 0, 0, 1, 0, 1, 2, 1, 2})
	iprp := box("iprp", box("ipco", ispe, irot), ipma)
	iloc := box("iloc", full, []byte{0x44, 0x00, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16})
	meta := box("meta", full, box("pitm", full, []byte{0, 1}), iinf, iloc, iprp)
	f.Add(append(box("ftyp", []byte("heic"), []byte{0, 0, 0, 0}, []byte("mif1heic")), meta...))
	f.Fuzz(func(t *testing.T, data []byte) {
		hf, err := parseHEIF(data)
		if err != nil {
			return
		}
		if len(hf.Exif) > len(data) || hf.Images < 0 || hf.Frames < 0 || hf.Rotation > 3 || hf.Mirror > 2 {
			t.Fatalf("parseHEIF() = %+v; out of bounds", hf)
		}
	})
}

// FuzzReadEXIF feeds the EXIF reader mutated TIFF structures: it must not
// panic and what it returns must be short printable text.
func FuzzReadEXIF(f *testing.F) {
	f.Add([]byte("II*\x00\x08\x00\x00\x00\x02\x00\x0f\x01\x02\x00\x06\x00\x00\x00\x26\x00\x00\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00\x00Apple\x00"))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\x00\x01\x87\x69\x00\x04\x00\x00\x00\x01\x00\x00\x00\x1a\x00\x00\x00\x00\x00\x01\x90\x03\x00\x02\x00\x00\x00\x14\x00\x00\x00\x2c\x00\x00\x00\x002024:03:01 18:00:00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := readEXIF(data)
		for _, s := range []string{x.Make, x.Model, x.Software, x.Taken} {
			if len(s) > 64+7 {
				t.Fatalf("readEXIF() field %q longer than 64 bytes", s)
			}
			for _, c := range []byte(s) {
				if c < 0x20 || c > 0x7e {
					t.Fatalf("readEXIF() field %q holds byte %#x", s, c)
				}
			}
		}
		if x.Orientation < 0 || x.Orientation > 8 {
			t.Fatalf("readEXIF() orientation %d", x.Orientation)
		}
		tiffPages(data, 100)
	})
}
