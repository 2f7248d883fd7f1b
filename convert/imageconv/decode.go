package imageconv

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// decode decodes the picture the header describes: the first frame or
// page, the primary picture. It returns what it chose, for the label, and
// sets h.orient to the turning still to do (none when the decoder did it).
func (c *Converter) decode(ctx context.Context, data []byte, h *header, t Target) (img image.Image, done []string, err error) {
	f := h.info.Format
	if h.info.Frames > 1 {
		switch {
		case h.info.Animated:
			done = append(done, fmt.Sprintf("first of %d frames (animated)", h.info.Frames))
		case f == TIFF:
			done = append(done, fmt.Sprintf("first of %d pages", h.info.Frames))
		default:
			done = append(done, fmt.Sprintf("primary picture of %d", h.info.Frames))
		}
	}
	if h.orient != (orientation{}) {
		done = append(done, "turned upright ("+orientationText(h.orient.exif())+")")
	}
	switch f {
	case HEIC, AVIF:
		img, err = c.decodeHEIF(ctx, data, h)
	case SVG:
		var drawn []string
		img, drawn, err = c.rasterSVG(ctx, h, t)
		done = append(done, drawn...)
	default:
		img, err = decodeRaster(data, h)
	}
	if err != nil {
		return nil, nil, err
	}
	return img, done, nil
}

// decodeRaster decodes a format Go's and x/image's decoders read. Those
// decoders have panicked on malformed input in the past; a panic is
// reported as a [*FormatError].
func decodeRaster(data []byte, h *header) (img image.Image, err error) {
	f := h.info.Format
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, formatErr(string(f), "the decoder failed", fmt.Errorf("panic: %v", r))
		}
	}()
	r := bytes.NewReader(data)
	switch f {
	case PNG:
		img, err = png.Decode(r)
	case JPEG:
		img, err = jpeg.Decode(r)
	case GIF:
		img, err = gif.Decode(r)
		if err == nil && img.Bounds() != image.Rect(0, 0, h.width, h.height) {
			// A first frame smaller than the screen: placed where it is
			// shown, on a transparent screen.
			img = onCanvas(img, img.Bounds().Min, h.width, h.height)
		}
	case BMP:
		img, err = bmp.Decode(r)
	case TIFF:
		img, err = tiff.Decode(r)
	case WebP:
		if h.webp.first != nil {
			img, err = webp.Decode(bytes.NewReader(h.webp.first))
			if err == nil && (h.webp.x != 0 || h.webp.y != 0 || h.webp.w != h.width || h.webp.h != h.height) {
				img = onCanvas(img, image.Pt(h.webp.x, h.webp.y), h.width, h.height)
			}
		} else {
			img, err = webp.Decode(r)
		}
	}
	if err != nil {
		return nil, decodeErr(f, "decode", err)
	}
	return img, nil
}

// onCanvas draws m at p on a transparent canvas of w × h.
func onCanvas(m image.Image, p image.Point, w, h int) image.Image {
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, m.Bounds().Sub(m.Bounds().Min).Add(p), m, m.Bounds().Min, draw.Src)
	return dst
}

// decodeHEIF decodes a HEIC or AVIF picture in WebAssembly, on a goroutine
// of its own: a cancelled context returns at once, and the decode, which
// cannot be interrupted (see wasm.go), finishes in the background within
// its memory budget and is dropped.
func (c *Converter) decodeHEIF(ctx context.Context, data []byte, h *header) (image.Image, error) {
	f := h.info.Format
	budget, expect := decoderBudget(f, int64(h.width), int64(h.height), int64(len(data)))
	if budget > c.lim.MaxDecoderMemory {
		return nil, limitErr(string(f), "decoder memory bytes", c.lim.MaxDecoderMemory, budget)
	}
	type result struct {
		img image.Image
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: formatErr(string(f), "the decoder failed", fmt.Errorf("panic: %v", p))}
			}
			ch <- r
		}()
		if f == HEIC {
			r.img, r.err = c.wasm.decodeHEIC(ctx, data, budget, expect, c.lim.MaxPixels)
		} else {
			r.img, r.err = c.wasm.decodeAVIF(ctx, data, budget, expect, c.lim.MaxPixels)
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		if f == HEIC {
			// libheif turns the picture as the container says.
			h.orient = orientation{}
		}
		return r.img, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
