package imageconv_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"os/exec"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"github.com/keel-go/keel/convert/imageconv"
)

// FuzzConvert feeds the decoders' entry point (Describe and Convert, every
// format) with mutated images: whatever the bytes, the result is an image
// or a typed error, never a panic, a hang, or memory beyond the limits.
func FuzzConvert(f *testing.F) {
	small := picture().SubImage(image.Rect(0, 0, 64, 32))
	var j, g, b, tf bytes.Buffer
	jpeg.Encode(&j, small, nil)
	gif.Encode(&g, small, nil)
	bmp.Encode(&b, small)
	tiff.Encode(&tf, small, &tiff.Options{Compression: tiff.LZW})
	for _, seed := range [][]byte{
		encodePNG(f, small), j.Bytes(), g.Bytes(), b.Bytes(), tf.Bytes(),
		[]byte(svgPicture), pngHeader(50_000, 50_000), webpLosslessHeader(64, 64),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M1 1 C 5 9 9 1 9 9 Z" stroke="red" stroke-dasharray="1 2"/></svg>`),
	} {
		f.Add(seed)
	}
	// Small HEIC and AVIF files, when ImageMagick can write them here.
	if _, err := exec.LookPath("convert"); err == nil {
		dir := f.TempDir()
		writeFile(f, dir, "s.png", encodePNG(f, small))
		for _, out := range []string{"s.heic", "s.avif", "s.webp"} {
			if err := exec.Command("convert", dir+"/s.png", dir+"/"+out).Run(); err == nil {
				f.Add(readFile(f, dir+"/"+out))
			}
		}
	}
	c := imageconv.New(imageconv.Options{Limits: imageconv.Limits{MaxInput: 1 << 20, MaxPixels: 1 << 20, MaxElements: 10_000, MaxDecoderMemory: 64 << 20}})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := imageconv.Input{Name: "f", Data: data}
		if _, err := c.Describe(context.Background(), in); err != nil {
			typedErr(t, err)
			return
		}
		im, err := c.Convert(context.Background(), in, imageconv.Target{MaxSide: 256, MaxBytes: 1 << 20})
		if err != nil {
			typedErr(t, err)
			return
		}
		if im.Width < 1 || im.Height < 1 || im.Width > 256 || im.Height > 256 && len(im.Done) > 0 {
			t.Fatalf("Convert() = %d × %d; want within 256 a side", im.Width, im.Height)
		}
	})
}

func typedErr(t *testing.T, err error) {
	t.Helper()
	var fe *imageconv.FormatError
	if !errors.As(err, &fe) && !errors.Is(err, imageconv.ErrLimit) && !errors.Is(err, imageconv.ErrUnsupported) {
		t.Fatalf("error %v (%T) is not one of the package's types", err, err)
	}
}
