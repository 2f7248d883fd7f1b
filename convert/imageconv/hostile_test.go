package imageconv_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/convert/imageconv"
)

// pngHeader is a valid PNG that declares w × h pixels of 8-bit RGBA and
// holds a few bytes of compressed data: a decompression bomb's header.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	chunk("IHDR", append(ihdr, 8, 6, 0, 0, 0))
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 1<<16))
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return b.Bytes()
}

func jpegHeader(w, h uint16) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0}
	b = append(b, 0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 0x3F, 0) // start of scan
	return append(b, 0xFF, 0xD9)
}

func gifHeader(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	return append(b, 0, 0, 0, ';')
}

func bmpHeader(w, h int32) []byte {
	b := []byte("BM")
	b = binary.LittleEndian.AppendUint32(b, 54)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 54)
	b = binary.LittleEndian.AppendUint32(b, 40)
	b = binary.LittleEndian.AppendUint32(b, uint32(w))
	b = binary.LittleEndian.AppendUint32(b, uint32(h))
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 24)
	return append(b, make([]byte, 24)...)
}

// tiffHeader is a grey TIFF of one strip declaring w × h pixels.
func tiffHeader(w, h uint32) []byte {
	type entry struct {
		tag, typ uint16
		value    uint32
	}
	entries := []entry{{256, 4, w}, {257, 4, h}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1}, {273, 4, 8}, {277, 3, 1}, {278, 4, h}, {279, 4, 1}}
	b := []byte("II*\x00")
	b = binary.LittleEndian.AppendUint32(b, 8)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(entries)))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.typ)
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, e.value)
	}
	return binary.LittleEndian.AppendUint32(b, 0)
}

// webpLosslessHeader is a lossless WebP declaring w × h pixels (at most
// 16384 a side).
func webpLosslessHeader(w, h uint32) []byte {
	bits := (w - 1) | (h-1)<<14
	vp8l := []byte{0x2f}
	vp8l = binary.LittleEndian.AppendUint32(vp8l, bits)
	vp8l = append(vp8l, 0, 0, 0)
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, uint32(4+8+len(vp8l)))
	b = append(b, "WEBPVP8L"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vp8l)))
	return append(b, vp8l...)
}

// patchISPE sets every ispe (image spatial extent) box of a HEIF file to
// w × h, leaving the coded picture as it is.
func patchISPE(t *testing.T, data []byte, w, h uint32) []byte {
	t.Helper()
	out := bytes.Clone(data)
	n := 0
	for i := 0; ; {
		j := bytes.Index(out[i:], []byte("ispe"))
		if j < 0 {
			break
		}
		p := i + j + 4 + 4 // type, then version and flags
		binary.BigEndian.PutUint32(out[p:], w)
		binary.BigEndian.PutUint32(out[p+4:], h)
		i = p + 8
		n++
	}
	if n == 0 {
		t.Fatal("no ispe box in the file")
	}
	return out
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxHostileAlloc is what refusing a hostile file may allocate.
const maxHostileAlloc = 100 << 20

func TestBombsAreRefusedFromTheirHeaders(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		data   func(t *testing.T) []byte
		format imageconv.Format
		pixels int64
	}{
		{"PNG of 50,000 × 50,000", func(*testing.T) []byte { return pngHeader(50_000, 50_000) }, imageconv.PNG, 2_500_000_000},
		{"JPEG of 60,000 × 60,000", func(*testing.T) []byte { return jpegHeader(60_000, 60_000) }, imageconv.JPEG, 3_600_000_000},
		{"GIF of 65,535 × 65,535", func(*testing.T) []byte { return gifHeader(65535, 65535) }, imageconv.GIF, 65535 * 65535},
		{"BMP of 50,000 × 50,000", func(*testing.T) []byte { return bmpHeader(50_000, 50_000) }, imageconv.BMP, 2_500_000_000},
		{"TIFF of 100,000 × 100,000", func(*testing.T) []byte { return tiffHeader(100_000, 100_000) }, imageconv.TIFF, 10_000_000_000},
		{"lossless WebP of 16,384 × 16,384", func(*testing.T) []byte { return webpLosslessHeader(16384, 16384) }, imageconv.WebP, 16384 * 16384},
		{"HEIC declaring 50,000 × 50,000", func(t *testing.T) []byte {
			return patchISPE(t, magickFromPicture(t, dir, "bomb.heic"), 50_000, 50_000)
		}, imageconv.HEIC, 2_500_000_000},
		{"AVIF declaring 50,000 × 50,000", func(t *testing.T) []byte {
			return patchISPE(t, magickFromPicture(t, dir, "bomb.avif"), 50_000, 50_000)
		}, imageconv.AVIF, 2_500_000_000},
	}
	c := imageconv.Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data(t)
			var err error
			alloc := allocated(func() {
				_, err = c.Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Target{})
			})
			var le *imageconv.LimitError
			if !errors.As(err, &le) || !errors.Is(err, imageconv.ErrLimit) {
				t.Fatalf("Convert() = %v; want a *LimitError", err)
			}
			if le.Format != string(tt.format) || le.Limit != "pixels" || le.Max != imageconv.DefaultMaxPixels || le.Got != tt.pixels {
				t.Errorf("Convert() = %+v; want format %s, limit pixels, max %d, got %d", *le, tt.format, imageconv.DefaultMaxPixels, tt.pixels)
			}
			if !strings.Contains(err.Error(), "pixels") {
				t.Errorf("error %q does not name the limit", err)
			}
			if alloc > 1<<20 {
				t.Errorf("refusing it allocated %d bytes; want under 1 MiB (the header alone is read)", alloc)
			}
			if _, err := c.Describe(context.Background(), imageconv.Input{Data: data}); !errors.As(err, &le) {
				t.Errorf("Describe() = %v; want a *LimitError", err)
			}
		})
	}
}

// svgHostile are SVGs that must be refused, each with the error it gets.
var svgHostile = []struct {
	name string
	svg  string
	want func(error) bool
	says string
}{
	{"billion laughs", `<?xml version="1.0"?>
<!DOCTYPE svg [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&lol9;</text></svg>`, isFormat, "entities"},
	{"nesting 1,000 deep", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">` + strings.Repeat("<g>", 1000) + strings.Repeat("</g>", 1000) + `</svg>`, isLimit, "nesting depth"},
	{"100,001 elements", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">` + strings.Repeat(`<rect/>`, 100_001) + `</svg>`, isLimit, "elements"},
	{"a <use> inside <defs>", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><g id="a"><use href="#a"/></g></defs><use href="#a"/></svg>`, isUnsupported, "<use> inside <defs>"},
	{"1,000 uses of 1,000 defined elements", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><defs><g id="a">` + strings.Repeat(`<rect width="1" height="1"/>`, 1000) + `</g></defs>` + strings.Repeat(`<use href="#a"/>`, 1000) + `</svg>`, isLimit, "repeated by <use>"},
	{"an image from the cloud metadata service", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="http://169.254.169.254/latest/meta-data/"/></svg>`, isUnsupported, "169.254.169.254"},
	{"an image from a local file", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="file:///etc/passwd"/></svg>`, isUnsupported, "file:///etc/passwd"},
	{"a use of another file", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><use href="other.svg#a"/></svg>`, isUnsupported, "other.svg#a"},
	{"a fill from a URL", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5" style="fill:url(http://example.com/p.svg#p)"/></svg>`, isUnsupported, "example.com"},
	{"a stylesheet import", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>@import url(https://example.com/a.css);</style></svg>`, isUnsupported, "@import"},
	{"20,000 shapes covering the canvas", `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000" viewBox="0 0 10 10">` + strings.Repeat(`<rect width="10" height="10" fill="red"/>`, 20_000) + `</svg>`, isLimit, "drawing work"},
	{"not SVG at the root", `<svg:x xmlns:svg="http://www.w3.org/2000/svg"/>`, isUnsupportedOrFormat, ""},
	{"a viewBox of no size", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 0 0"/>`, isFormat, "viewBox"},
	{"a viewBox of NaN", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 NaN 5"/>`, isFormat, "viewBox"},
}

func isFormat(err error) bool {
	var fe *imageconv.FormatError
	return errors.As(err, &fe)
}

func isLimit(err error) bool { return errors.Is(err, imageconv.ErrLimit) }

func isUnsupported(err error) bool { return errors.Is(err, imageconv.ErrUnsupported) }

func isUnsupportedOrFormat(err error) bool { return isUnsupported(err) || isFormat(err) }

func TestHostileSVGsAreRefused(t *testing.T) {
	c := imageconv.Default()
	for _, tt := range svgHostile {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			alloc := allocated(func() {
				_, err = c.Convert(context.Background(), imageconv.Input{Name: "x.svg", Data: []byte(tt.svg)}, imageconv.Target{})
			})
			if !tt.want(err) {
				t.Fatalf("Convert() = %v (%T); want the other kind of error", err, err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Convert() = %q; want it to say %q", err, tt.says)
			}
			if alloc > maxHostileAlloc {
				t.Errorf("refusing it allocated %d MiB; want at most %d", alloc>>20, maxHostileAlloc>>20)
			}
		})
	}
}

func TestHostileButHarmlessSVGsAreDrawnWithinTheTarget(t *testing.T) {
	tests := []struct {
		name, svg string
		w, h      int
	}{
		{"a viewBox of 1e9 × 5e8", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1e9 5e8"><rect width="5e8" height="5e8" fill="red"/><rect x="5e8" width="5e8" height="5e8" fill="blue"/></svg>`, 2000, 1000},
		{"a size of 1e9 × 5e8 pixels", `<svg xmlns="http://www.w3.org/2000/svg" width="1e9" height="5e8"><rect width="5e8" height="5e8" fill="red"/></svg>`, 2000, 1000},
		// rasterx makes dashes this short into a solid line.
		{"dashes a millionth of the path long", `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000" viewBox="0 0 100 100"><path d="M0 0 L100 100 L0 100 Z" stroke="black" fill="none" stroke-dasharray="0.00001 0.00001"/></svg>`, 1024, 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var im *imageconv.Image
			var err error
			alloc := allocated(func() {
				im, err = imageconv.Default().Convert(context.Background(), imageconv.Input{Data: []byte(tt.svg)}, imageconv.Target{MaxSide: 2000})
			})
			if err != nil {
				t.Fatal(err)
			}
			if im.Width != tt.w || im.Height != tt.h {
				t.Errorf("Convert() = %d × %d; want %d × %d", im.Width, im.Height, tt.w, tt.h)
			}
			if alloc > maxHostileAlloc {
				t.Errorf("drawing it allocated %d MiB; want at most %d", alloc>>20, maxHostileAlloc>>20)
			}
		})
	}
}

func TestMalformedFilesGetTypedErrors(t *testing.T) {
	dir := t.TempDir()
	var gifs bytes.Buffer
	gifs.Write(gifAnimation(t))
	files := map[string][]byte{
		"png":  encodePNG(t, picture()),
		"gif":  gifs.Bytes(),
		"heic": magickFromPicture(t, dir, "p.heic"),
		"avif": magickFromPicture(t, dir, "p.avif"),
		"webp": magickFromPicture(t, dir, "p.webp"),
		"tiff": magickFromPicture(t, dir, "p.tiff", "-compress", "LZW"),
		"svg":  []byte(svgPicture),
	}
	c := imageconv.Default()
	for name, data := range files {
		for _, cut := range []int{len(data) / 2, len(data) * 9 / 10, 40} {
			t.Run(fmt.Sprintf("%s cut at %d of %d bytes", name, cut, len(data)), func(t *testing.T) {
				_, err := c.Convert(context.Background(), imageconv.Input{Data: data[:cut]}, imageconv.Target{})
				if err == nil {
					return // a decoder may show what it has; that is no harm
				}
				if !isFormat(err) && !isUnsupported(err) {
					t.Errorf("Convert() = %v (%T); want a *FormatError or ErrUnsupported", err, err)
				}
			})
		}
	}
	for _, data := range []string{"", "hello", "%PDF-1.7\n", "\x00\x00\x00\x0cftypqt  "} {
		if _, err := c.Convert(context.Background(), imageconv.Input{Data: []byte(data)}, imageconv.Target{}); !isUnsupported(err) {
			t.Errorf("Convert(%q) = %v; want ErrUnsupported", data, err)
		}
	}
}

func TestCancelledContextStopsConversion(t *testing.T) {
	dir := t.TempDir()
	heic := magickFromPicture(t, dir, "p.heic")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, data := range [][]byte{encodePNG(t, picture()), heic, []byte(svgPicture)} {
		if _, err := imageconv.Default().Convert(cancelled, imageconv.Input{Data: data}, imageconv.Target{MaxSide: 100}); !errors.Is(err, context.Canceled) {
			t.Errorf("Convert() with a cancelled context = %v; want context.Canceled", err)
		}
	}
	// Cancelled while a fresh converter compiles its HEIC decoder, which
	// takes seconds: the call returns when the context ends.
	c := imageconv.New(imageconv.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Convert(ctx, imageconv.Input{Data: heic}, imageconv.Target{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Convert() = %v; want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Convert() returned %v after its context ended; want at once", d)
	}
}

func TestDecoderMemoryBudgetStopsHEIFDecoders(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"big.heic", "big.avif"} {
		t.Run(name, func(t *testing.T) {
			data := magickFromPicture(t, dir, name, "-resize", "960x480")
			c := imageconv.Default()
			// A 960 × 480 picture needs a few megabytes: with one, the
			// decoder's allocations fail inside its sandbox.
			_, err := c.DecodeHEIFWithBudget(context.Background(), data, 1<<20)
			var le *imageconv.LimitError
			if !errors.As(err, &le) || le.Limit != "decoder memory bytes" || le.Max != 1<<20 || le.Got <= 1<<20 {
				t.Fatalf("decode with a 1 MiB budget = %v; want a *LimitError on decoder memory bytes", err)
			}
			m, err := c.DecodeHEIFWithBudget(context.Background(), data, 64<<20)
			if err != nil {
				t.Fatalf("decode with a 64 MiB budget = %v", err)
			}
			if m.Bounds().Dx() != 960 || m.Bounds().Dy() != 480 {
				t.Errorf("decoded %v; want 960 × 480", m.Bounds())
			}
			checkPicture(t, m, 64)
		})
	}
}
