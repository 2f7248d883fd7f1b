package imageconv_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	"github.com/keel-go/keel/convert/imageconv"
)

// svgPicture is the test picture as an SVG, with a title and a text
// element the drawing leaves out.
const svgPicture = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="240" height="120" viewBox="0 0 240 120">
  <title>Quarterly revenue</title>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#00f"/><stop offset="1" stop-color="#00f"/></linearGradient></defs>
  <rect x="0" y="0" width="120" height="120" fill="red"/>
  <rect x="120" y="0" width="120" height="120" style="fill:url(#g)"/>
  <rect x="10" y="10" width="40" height="40" fill="#fff"/>
  <clipPath id="c"><rect x="0" y="0" width="240" height="120" fill="green"/></clipPath>
  <text x="60" y="100">Q3: 1.2M</text>
</svg>`

func gifAnimation(t *testing.T) []byte {
	t.Helper()
	src := picture()
	var frames []*image.Paletted
	for i := range 3 {
		p := image.NewPaletted(src.Rect, palette.Plan9)
		draw.Draw(p, p.Rect, src, image.Point{}, draw.Src)
		if i > 0 {
			draw.Draw(p, image.Rect(0, 0, picW, picH), image.NewUniform(color.Black), image.Point{}, draw.Src)
		}
		frames = append(frames, p)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: frames, Delay: []int{10, 10, 10}}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestConvertFormats(t *testing.T) {
	c := imageconv.Default()
	dir := t.TempDir()
	var bmpData, tiffData bytes.Buffer
	bmp.Encode(&bmpData, picture())
	tiff.Encode(&tiffData, picture(), &tiff.Options{Compression: tiff.Deflate})
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		// want: the output's media type, the source's format, the
		// frames it declares, and words the summary must hold.
		mediaType string
		format    imageconv.Format
		frames    int
		summary   []string
		tol       int
	}{
		{"BMP from x/image", func(*testing.T) []byte { return bmpData.Bytes() }, "image/png", imageconv.BMP, 1, []string{"BMP 240 × 120 → PNG 240 × 120"}, 0},
		{"TIFF from x/image, deflate", func(*testing.T) []byte { return tiffData.Bytes() }, "image/png", imageconv.TIFF, 1, []string{"TIFF 240 × 120 → PNG 240 × 120"}, 0},
		{"GIF animation from image/gif", gifAnimation, "image/png", imageconv.GIF, 3, []string{"first of 3 frames (animated)"}, 8},
		{"TIFF of 3 pages from ImageMagick, LZW", func(t *testing.T) []byte {
			writeFile(t, dir, "p.png", encodePNG(t, picture()))
			return magick(t, dir, "pages.tiff", "p.png", "p.png", "p.png", "-compress", "LZW")
		}, "image/png", imageconv.TIFF, 3, []string{"first of 3 pages"}, 0},
		{"lossy WebP from ImageMagick", func(t *testing.T) []byte {
			return magickFromPicture(t, dir, "lossy.webp", "-quality", "90")
		}, "image/jpeg", imageconv.WebP, 1, []string{"WebP 240 × 120 → JPEG 240 × 120"}, 48},
		{"lossless WebP from ImageMagick", func(t *testing.T) []byte {
			return magickFromPicture(t, dir, "lossless.webp", "-define", "webp:lossless=true")
		}, "image/png", imageconv.WebP, 1, []string{"WebP 240 × 120 → PNG 240 × 120"}, 0},
		{"animated WebP from ImageMagick", func(t *testing.T) []byte {
			writeFile(t, dir, "p.png", encodePNG(t, picture()))
			return magick(t, dir, "anim.webp", "-delay", "10", "p.png", "(", "p.png", "-negate", ")", "-loop", "0", "-define", "webp:lossless=true")
		}, "image/png", imageconv.WebP, 2, []string{"first of 2 frames (animated)"}, 0},
		{"HEIC from ImageMagick (libheif, x265)", func(t *testing.T) []byte {
			return magickFromPicture(t, dir, "photo.heic", "-quality", "90")
		}, "image/jpeg", imageconv.HEIC, 1, []string{"HEIC 240 × 120 → JPEG 240 × 120"}, 64},
		{"AVIF from ImageMagick (libheif, aom)", func(t *testing.T) []byte {
			return magickFromPicture(t, dir, "photo.avif", "-quality", "90")
		}, "image/jpeg", imageconv.AVIF, 1, []string{"AVIF 240 × 120 → JPEG 240 × 120"}, 64},
		{"SVG", func(*testing.T) []byte { return []byte(svgPicture) }, "image/png", imageconv.SVG, 1,
			[]string{"SVG 240 × 120 → PNG 1024 × 512", "drawn at 1024 × 512 from 240 × 120", "1 text elements not drawn"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.data(t)
			in := imageconv.Input{Name: "file", Data: data}
			info, err := c.Describe(context.Background(), in)
			if err != nil {
				t.Fatalf("Describe() = %v", err)
			}
			if info.Format != tt.format || info.Frames != tt.frames || info.Width != picW || info.Height != picH {
				t.Errorf("Describe() = %s %d × %d, %d frames; want %s %d × %d, %d frames", info.Format, info.Width, info.Height, info.Frames, tt.format, picW, picH, tt.frames)
			}
			im, err := c.Convert(context.Background(), in, imageconv.Target{})
			if err != nil {
				t.Fatalf("Convert() = %v", err)
			}
			if im.MediaType != tt.mediaType {
				t.Errorf("Convert().MediaType = %q; want %q", im.MediaType, tt.mediaType)
			}
			for _, s := range tt.summary {
				if !strings.Contains(im.Summary(), s) {
					t.Errorf("Convert().Summary() = %q; want it to hold %q", im.Summary(), s)
				}
			}
			var out image.Image
			if im.MediaType == "image/png" {
				out, err = png.Decode(bytes.NewReader(im.Data))
			} else {
				out, err = jpeg.Decode(bytes.NewReader(im.Data))
			}
			if err != nil {
				t.Fatalf("decode the converted image: %v", err)
			}
			if out.Bounds().Dx() != im.Width || out.Bounds().Dy() != im.Height {
				t.Errorf("converted image is %v; Convert() says %d × %d", out.Bounds(), im.Width, im.Height)
			}
			checkPicture(t, out, tt.tol+6)
		})
	}
}

func TestConvertPassesThroughWhatTheTargetTakes(t *testing.T) {
	data := encodePNG(t, picture())
	im, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Anthropic())
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != "image/png" || &im.Data[0] != &data[0] || len(im.Done) != 0 {
		t.Errorf("Convert() = %s, %d bytes, done %q; want the input itself", im.MediaType, len(im.Data), im.Done)
	}
	// The same PNG to a target that takes only JPEG becomes one.
	im, err = imageconv.Default().Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Target{Accepts: []string{"image/jpeg"}})
	if err != nil {
		t.Fatal(err)
	}
	if im.MediaType != "image/jpeg" {
		t.Errorf("Convert() to a JPEG-only target = %s; want image/jpeg", im.MediaType)
	}
}

func TestConvertScalesWithinTheTarget(t *testing.T) {
	// The test picture ten times larger, shrunk to fit 600 pixels a side:
	// halved twice, then resampled.
	small := picture()
	big := image.NewRGBA(image.Rect(0, 0, 10*picW, 10*picH))
	for y := range 10 * picH {
		for x := range 10 * picW {
			big.Set(x, y, small.At(x/10, y/10))
		}
	}
	for _, tt := range []struct {
		target imageconv.Target
		w, h   int
	}{
		{imageconv.Target{MaxSide: 600}, 600, 300},
		{imageconv.Target{MaxPixels: 20_000}, 200, 100},
		{imageconv.Target{MaxSide: 1000, MaxPixels: 400_000}, 894, 447},
	} {
		im, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: encodePNG(t, big)}, tt.target)
		if err != nil {
			t.Fatal(err)
		}
		if im.Width != tt.w || im.Height != tt.h {
			t.Errorf("Convert(%+v) = %d × %d; want %d × %d", tt.target, im.Width, im.Height, tt.w, tt.h)
		}
		m, err := png.Decode(bytes.NewReader(im.Data))
		if err != nil {
			t.Fatal(err)
		}
		checkPicture(t, m, 8)
	}
}
