package imageconv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"

	"golang.org/x/image/draw"
)

// jpegQualities are the qualities tried, in order, before the size is
// reduced: 85 is hard to tell from the original at a normal viewing size;
// below 45 text in a photograph starts to smear.
var jpegQualities = []int{85, 75, 60, 45}

// maxShrinks bounds the times the picture is made smaller to fit MaxBytes;
// each takes it to 0.83 of the width and height (0.69 of the area).
const maxShrinks = 12

// fit scales img (stored as h says) into t, turns it upright, and encodes
// it as a PNG or JPEG of at most t.MaxBytes bytes.
func fit(ctx context.Context, img image.Image, h *header, t Target) (*Image, error) {
	b := img.Bounds()
	dw, dh := b.Dx(), b.Dy() // as shown
	if h.orient.swaps() {
		dw, dh = dh, dw
	}
	ow, oh := fitSize(dw, dh, t.MaxSide, t.MaxPixels)
	sized := ow != dw || oh != dh
	opaque := isOpaque(img)
	canPNG, canJPEG := t.accepts("image/png"), t.accepts("image/jpeg")
	if !canPNG && !canJPEG {
		return nil, unsupported("", "a target that accepts neither image/png nor image/jpeg")
	}
	photo := (h.photo && opaque || !canPNG) && canJPEG
	for shrink := 0; ; shrink++ {
		m := h.orient.apply(scale(img, ow, oh, h.orient.swaps()))
		note := func(extra ...string) []string {
			var done []string
			switch {
			case shrink > 0:
				done = append(done, fmt.Sprintf("scaled from %d × %d to fit %d bytes", dw, dh, t.MaxBytes))
			case sized:
				done = append(done, fmt.Sprintf("scaled from %d × %d to fit %d pixels a side and %d in all", dw, dh, t.MaxSide, t.MaxPixels))
			}
			return append(done, extra...)
		}
		if !photo {
			data, err := encodePNG(ctx, m, t.MaxBytes)
			if err == nil {
				return &Image{MediaType: "image/png", Data: data, Width: ow, Height: oh, Done: note()}, nil
			}
			if !errors.Is(err, errTooBig) {
				return nil, err
			}
		}
		if canJPEG {
			if im, err := fitJPEG(ctx, m, h, t, opaque); im != nil || err != nil {
				if im != nil {
					im.Width, im.Height, im.Done = ow, oh, note(im.Done...)
				}
				return im, err
			}
		}
		if shrink == maxShrinks || ow == 1 && oh == 1 {
			return nil, limitErr(string(h.info.Format), "output bytes", t.MaxBytes, 0)
		}
		ow, oh = max(1, ow*83/100), max(1, oh*83/100)
	}
}

// fitJPEG encodes m as a JPEG of at most t.MaxBytes, stepping its quality
// down; nil, nil when even the lowest quality is too big.
func fitJPEG(ctx context.Context, m image.Image, h *header, t Target, opaque bool) (*Image, error) {
	flat := m
	if !opaque {
		flat = flatten(m)
	}
	for _, q := range jpegQualities {
		data, err := encodeJPEG(ctx, flat, q, t.MaxBytes)
		if errors.Is(err, errTooBig) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var done []string
		if !h.photo && t.accepts("image/png") {
			done = append(done, "as JPEG: the PNG would exceed the size limit")
		}
		if !opaque {
			done = append(done, "transparency flattened onto white")
		}
		if q != jpegQualities[0] {
			done = append(done, fmt.Sprintf("JPEG quality %d to fit %d bytes", q, t.MaxBytes))
		}
		return &Image{MediaType: "image/jpeg", Data: data, Quality: q, Done: done}, nil
	}
	return nil, nil
}

// fitSize returns the largest size of the aspect ratio of w × h within
// maxSide a side and maxPixels in all; w × h itself when it fits.
func fitSize(w, h, maxSide int, maxPixels int64) (int, int) {
	s := 1.0
	s = min(s, float64(maxSide)/float64(w), float64(maxSide)/float64(h))
	if px := float64(w) * float64(h); px*s*s > float64(maxPixels) {
		s = math.Sqrt(float64(maxPixels) / px)
	}
	if s >= 1 {
		return w, h
	}
	return max(1, int(float64(w)*s)), max(1, int(float64(h)*s))
}

// scale returns img scaled to w × h as shown (h × w as stored when
// swapped), as an *image.RGBA, or the image itself when it is already that
// size. It halves the picture with a 2 × 2 box filter while it is at
// least twice the size wanted, then resamples bilinearly to the exact
// size: each output pixel then averages all the input pixels under it, as
// a proper filter does, at a fraction of the cost of x/image/draw's
// Catmull-Rom kernel, which took 1.1 s and 192 MB of scratch to shrink a
// 4000 × 3000 photograph to 2000 × 1500 (BENCHMARKS.md).
func scale(img image.Image, w, h int, swapped bool) image.Image {
	if swapped {
		w, h = h, w
	}
	b := img.Bounds()
	if b.Dx() == w && b.Dy() == h {
		return img
	}
	src := toRGBA(img)
	for src.Rect.Dx() >= 2*w && src.Rect.Dy() >= 2*h {
		src = halve(src)
	}
	if src.Rect.Dx() == w && src.Rect.Dy() == h {
		return src
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Rect, src, src.Rect, draw.Src, nil)
	return dst
}

// halve returns m at half its width and height, each pixel the mean of
// the 2 × 2 it covers (an odd last row or column is dropped).
func halve(m *image.RGBA) *image.RGBA {
	w, h := m.Rect.Dx()/2, m.Rect.Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		r0 := m.Pix[2*y*m.Stride:]
		r1 := m.Pix[(2*y+1)*m.Stride:]
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x := 0; x < 4*w; x += 4 {
			s := 2 * x
			for c := range 4 {
				d[x+c] = uint8((uint16(r0[s+c]) + uint16(r0[s+4+c]) + uint16(r1[s+c]) + uint16(r1[s+4+c]) + 2) >> 2)
			}
		}
	}
	return dst
}

// isOpaque reports whether every pixel of img is opaque, asking the image
// when it can say (the standard types scan their alpha).
func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	switch img.ColorModel() {
	case color.YCbCrModel, color.GrayModel, color.Gray16Model, color.CMYKModel:
		return true
	}
	return false
}

// flatten draws img onto white.
func flatten(img image.Image) image.Image {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Rect, image.White, image.Point{}, draw.Src)
	draw.Draw(dst, dst.Rect, img, b.Min, draw.Over)
	return dst
}

// errTooBig stops an encoder whose output passed the size limit.
var errTooBig = errors.New("encoded image over the size limit")

// capWriter is a buffer that refuses to grow past max bytes, so that an
// encoding that will not fit stops early instead of finishing.
type capWriter struct {
	bytes.Buffer
	max int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	if int64(w.Len()+len(p)) > w.max {
		return 0, errTooBig
	}
	return w.Buffer.Write(p)
}

func encodePNG(ctx context.Context, m image.Image, maxBytes int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, ok := m.(*image.YCbCr); ok {
		m = toRGBA(m) // png's encoder would read it pixel by pixel
	}
	w := &capWriter{max: maxBytes}
	if err := png.Encode(w, m); err != nil {
		if errors.Is(err, errTooBig) {
			return nil, errTooBig
		}
		return nil, fmt.Errorf("imageconv: encode PNG: %w", err)
	}
	return w.Bytes(), nil
}

func encodeJPEG(ctx context.Context, m image.Image, q int, maxBytes int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &capWriter{max: maxBytes}
	if err := jpeg.Encode(w, m, &jpeg.Options{Quality: q}); err != nil {
		if errors.Is(err, errTooBig) {
			return nil, errTooBig
		}
		return nil, fmt.Errorf("imageconv: encode JPEG: %w", err)
	}
	return w.Bytes(), nil
}

// toRGBA returns m as an *image.RGBA at the origin, m itself if it is one.
func toRGBA(m image.Image) *image.RGBA {
	if r, ok := m.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := m.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Rect, m, b.Min, draw.Src)
	return dst
}
