package imageconv_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/keel-go/keel/convert/imageconv"
)

// The tags exiftool writes into each test file: a date, a camera, the
// software, and a location that must never come out.
var exifTags = []string{
	"-DateTimeOriginal=2024:03:01 18:00:00", "-OffsetTimeOriginal=+01:00",
	"-Make=Apple", "-Model=iPhone 13", "-Software=17.1",
	"-GPSLatitude=48.858370", "-GPSLatitudeRef=N", "-GPSLongitude=2.294481", "-GPSLongitudeRef=E",
	"-GPSAltitude=35", "-GPSImgDirection=123.4",
}

// gpsTraces are what a location would look like in any form: degrees,
// minutes, the tag group's name.
var gpsTraces = []string{"48.8", "48°", "2.29", "2°", "GPS", "123.4", "N 48", "Latitude", "Longitude"}

func TestDescribeReadsEXIFAndNeverLocation(t *testing.T) {
	dir := t.TempDir()
	var jpegData, tiffData bytes.Buffer
	jpeg.Encode(&jpegData, picture(), nil)
	tiff.Encode(&tiffData, picture(), nil)
	tests := []struct {
		name string
		file func(t *testing.T) []byte
	}{
		{"JPEG from image/jpeg", func(*testing.T) []byte { return jpegData.Bytes() }},
		{"TIFF from x/image", func(*testing.T) []byte { return tiffData.Bytes() }},
		{"PNG from image/png", func(t *testing.T) []byte { return encodePNG(t, picture()) }},
		{"WebP from ImageMagick", func(t *testing.T) []byte { return magickFromPicture(t, dir, "p.webp") }},
		{"HEIC from ImageMagick", func(t *testing.T) []byte { return magickFromPicture(t, dir, "p.heic") }},
		{"AVIF from ImageMagick", func(t *testing.T) []byte { return magickFromPicture(t, dir, "p.avif") }},
	}
	c := imageconv.Default()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, fmt.Sprintf("tagged%d", i), tt.file(t))
			exiftool(t, path, exifTags...)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The location is in the file: the test would fail if the
			// reader let it out.
			out, _ := exec.Command("exiftool", "-n", "-GPSLatitude", path).Output()
			if !strings.Contains(string(out), "48.858") {
				t.Fatalf("exiftool wrote no GPS latitude: %q", out)
			}
			info, err := c.Describe(context.Background(), imageconv.Input{Data: data})
			if err != nil {
				t.Fatalf("Describe() = %v", err)
			}
			want := imageconv.Info{Taken: "2024-03-01 18:00:00 +01:00", Make: "Apple", Model: "iPhone 13", Software: "17.1"}
			if info.Taken != want.Taken || info.Make != want.Make || info.Model != want.Model || info.Software != want.Software {
				t.Errorf("Describe() = taken %q, make %q, model %q, software %q; want %q, %q, %q, %q",
					info.Taken, info.Make, info.Model, info.Software, want.Taken, want.Make, want.Model, want.Software)
			}
			text := info.Text()
			for _, line := range []string{"Taken: 2024-03-01 18:00:00 +01:00\n", "Camera: Apple iPhone 13\n", "Software: 17.1\n", fmt.Sprintf("%d × %d pixels", picW, picH)} {
				if !strings.Contains(text, line) {
					t.Errorf("Info.Text() = %q; want it to hold %q", text, line)
				}
			}
			all := fmt.Sprintf("%+v\n%s", *info, text)
			for _, trace := range gpsTraces {
				if strings.Contains(all, trace) {
					t.Errorf("Describe() holds %q, a trace of the location:\n%s", trace, all)
				}
			}
			// Converted (scaled, so that nothing passes through), the
			// image carries no metadata at all.
			im, err := c.Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Target{MaxSide: 200})
			if err != nil {
				t.Fatalf("Convert() = %v", err)
			}
			if len(im.Done) == 0 {
				t.Fatalf("Convert() passed the image through; want it scaled")
			}
			if bytes.Contains(im.Data, []byte("Exif")) || bytes.Contains(im.Data, []byte("eXIf")) {
				t.Errorf("the converted image carries EXIF; want none")
			}
		})
	}
}

// orientedAt maps a pixel (x, y) of the stored 240 × 120 test picture to
// where EXIF orientation o shows it, straight from the tag's definition
// (TIFF 6.0 / EXIF 2.32, "Orientation"): which stored row and column
// become the top and left of the view.
func orientedAt(o, x, y int) (int, int) {
	const w, h = picW, picH
	switch o {
	case 2: // row 0 at the top, column 0 on the right
		return w - 1 - x, y
	case 3: // row 0 at the bottom, column 0 on the right
		return w - 1 - x, h - 1 - y
	case 4: // row 0 at the bottom, column 0 on the left
		return x, h - 1 - y
	case 5: // row 0 on the left, column 0 at the top
		return y, x
	case 6: // row 0 on the right, column 0 at the top
		return h - 1 - y, x
	case 7: // row 0 on the right, column 0 at the bottom
		return h - 1 - y, w - 1 - x
	case 8: // row 0 on the left, column 0 at the bottom
		return y, w - 1 - x
	}
	return x, y
}

func TestConvertTurnsJPEGUprightByEXIFOrientation(t *testing.T) {
	dir := t.TempDir()
	var src bytes.Buffer
	jpeg.Encode(&src, picture(), &jpeg.Options{Quality: 95})
	for o := 1; o <= 8; o++ {
		t.Run(fmt.Sprint("orientation ", o), func(t *testing.T) {
			path := writeFile(t, dir, fmt.Sprintf("o%d.jpg", o), src.Bytes())
			exiftool(t, path, "-n", fmt.Sprintf("-Orientation=%d", o))
			data, _ := os.ReadFile(path)
			info, err := imageconv.Default().Describe(context.Background(), imageconv.Input{Data: data})
			if err != nil {
				t.Fatal(err)
			}
			wantW, wantH := picW, picH
			if o >= 5 {
				wantW, wantH = picH, picW
			}
			wantO := o
			if o == 1 {
				wantO = 0 // upright says nothing
			}
			if info.Width != wantW || info.Height != wantH || info.Orientation != wantO && !(o == 1 && info.Orientation == 1) {
				t.Errorf("Describe() = %d × %d, orientation %d; want %d × %d, %d", info.Width, info.Height, info.Orientation, wantW, wantH, o)
			}
			im, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Target{Accepts: []string{"image/png"}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := png.Decode(bytes.NewReader(im.Data))
			if err != nil {
				t.Fatal(err)
			}
			if m.Bounds() != image.Rect(0, 0, wantW, wantH) {
				t.Fatalf("converted image is %v; want %d × %d", m.Bounds(), wantW, wantH)
			}
			for _, p := range []struct {
				x, y int
				want any
			}{{30, 30, white}, {90, 90, red}, {180, 60, blue}} {
				x, y := orientedAt(o, p.x, p.y)
				if c := m.At(x, y); !near(c, p.want.(interface{ RGBA() (r, g, b, a uint32) }), 40) {
					t.Errorf("stored pixel (%d, %d) shown at (%d, %d) = %v; want %v", p.x, p.y, x, y, c, p.want)
				}
			}
			if o > 1 && !strings.Contains(im.Summary(), "turned upright") {
				t.Errorf("Summary() = %q; want it to say the picture was turned upright", im.Summary())
			}
		})
	}
}

// AVIF files written by libavif's avifenc with rotation (irot) and
// mirroring (imir) properties, which libavif leaves to the reader: each is
// shown as the EXIF orientation with the same meaning.
func TestConvertTurnsAVIFUprightByItsContainer(t *testing.T) {
	bin := tool(t, "avifenc", "libavif-bin")
	dir := t.TempDir()
	src := writeFile(t, dir, "p.png", encodePNG(t, picture()))
	for _, tt := range []struct {
		args []string
		exif int
	}{
		{[]string{"--irot", "1"}, 8}, // a quarter turn anticlockwise
		{[]string{"--irot", "2"}, 3},
		{[]string{"--irot", "3"}, 6},
		{[]string{"--imir", "0"}, 4}, // top to bottom
		{[]string{"--imir", "1"}, 2}, // left to right
		{[]string{"--irot", "1", "--imir", "1"}, 7},
		{[]string{"--irot", "3", "--imir", "1"}, 5},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out := filepath.Join(dir, "o.avif")
			cmd := exec.Command(bin, append(tt.args, "--lossless", src, out)...)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("avifenc: %v\n%s", err, b)
			}
			data := readFile(t, out)
			info, err := imageconv.Default().Describe(context.Background(), imageconv.Input{Data: data})
			if err != nil {
				t.Fatal(err)
			}
			if info.Orientation != tt.exif {
				t.Errorf("Describe().Orientation = %d; want %d", info.Orientation, tt.exif)
			}
			im, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Target{Accepts: []string{"image/png"}})
			if err != nil {
				t.Fatal(err)
			}
			m, err := png.Decode(bytes.NewReader(im.Data))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				x, y int
				want color.RGBA
			}{{30, 30, white}, {90, 90, red}, {180, 60, blue}} {
				x, y := orientedAt(tt.exif, p.x, p.y)
				if c := m.At(x, y); !near(c, p.want, 40) {
					t.Errorf("stored pixel (%d, %d) shown at (%d, %d) = %v; want %v", p.x, p.y, x, y, c, p.want)
				}
			}
		})
	}
}
