package imageconv_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/keel-go/keel/convert/imageconv"
)

// TestDecodedPlanesKeepTheirColours converts HEIC and AVIF pictures
// written by ImageMagick, of widths around the decoders' plane
// alignment (libheif allocates planes at least 64 pixels wide, so the
// chroma rows of a picture up to 128 pixels wide are longer than its
// width rounded), and compares every pixel with the picture encoded.
func TestDecodedPlanesKeepTheirColours(t *testing.T) {
	for _, size := range []image.Point{{64, 48}, {17, 9}, {100, 37}, {130, 20}} {
		gradient := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		for y := range size.Y {
			for x := range size.X {
				gradient.Set(x, y, color.RGBA{uint8(x * 255 / size.X), uint8(y * 255 / size.Y), uint8(255 - x*255/size.X), 255})
			}
		}
		for _, format := range []string{"heic", "avif"} {
			t.Run(fmt.Sprintf("%s %d×%d", format, size.X, size.Y), func(t *testing.T) {
				dir := t.TempDir()
				writeFile(t, dir, "src.png", encodePNG(t, gradient))
				data := magick(t, dir, "p."+format, "src.png", "-quality", "95")
				out, err := imageconv.Default().Convert(t.Context(), imageconv.Input{MediaType: "image/" + format, Data: data},
					imageconv.Target{Accepts: []string{"image/png"}, MaxBytes: 10 << 20})
				if err != nil {
					t.Fatal(err)
				}
				img, _, err := image.Decode(bytes.NewReader(out.Data))
				if err != nil {
					t.Fatal(err)
				}
				// 4:2:0 chroma of a steep gradient at 17 pixels wide
				// differs by up to 35; a plane read at the wrong stride
				// by up to 255.
				for y := range size.Y {
					for x := range size.X {
						if !near(img.At(x, y), gradient.At(x, y), 40) {
							t.Fatalf("Got(pixel %d,%d) = %v; want near %v", x, y, img.At(x, y), gradient.At(x, y))
						}
					}
				}
			})
		}
	}
}
