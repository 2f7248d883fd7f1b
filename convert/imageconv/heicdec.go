package imageconv

import (
	"context"
	"image"
)

// libheif's colour spaces and chroma formats, as the decoder reports them.
const (
	heifColorspaceYCbCr      = 0
	heifColorspaceRGB        = 1
	heifColorspaceMonochrome = 2
	heifChroma420            = 1
	heifChroma422            = 2
	heifChroma444            = 3
)

// heifStride is the row length in bytes of a libheif plane width pixels
// wide of bpp bytes a pixel: the decoder copies whole rows, strides
// included. libheif (1.18, which the module is built from) allocates a
// plane at least 64 pixels wide and an even number of them, and rounds
// its rows up to 16 bytes, so a plane narrower than 64 pixels (the
// chroma planes of any picture up to 128 wide) has a longer row than
// rounding alone gives.
func heifStride(width, bpp int) int {
	w := max((width+1)&^1, 64)
	return (w*bpp + 15) &^ 15
}

// decodeHEIC decodes the primary picture of a HEIC file with libheif in
// WebAssembly. The decoder applies the container's rotation and mirror.
// maxPixels bounds the picture the decoder reports before its planes are
// allocated.
//
// The module's function (lib/heif.c of github.com/gen2brain/heic):
//
//	int decode(uint8_t *in, int in_size, int config_only, uint32_t *width, uint32_t *height,
//	    uint32_t *colorspace, uint32_t *chroma, uint32_t *is_premultiplied, uint8_t *out)
func (e *wasmEngine) decodeHEIC(ctx context.Context, data []byte, budget, expect, maxPixels int64) (image.Image, error) {
	in, err := e.instantiate(ctx, HEIC, budget, expect)
	if err != nil {
		return nil, err
	}
	defer e.release(in)
	fail := func(err error) (image.Image, error) { return nil, e.wasmErr(ctx, HEIC, in.mem, err) }

	src, err := in.put(data)
	if err != nil {
		return fail(err)
	}
	fields, err := in.malloc(5 * 4)
	if err != nil || fields == 0 {
		return fail(errNoMemory(err))
	}
	w, h, cs, chroma := fields, fields+4, fields+8, fields+12
	decode := func(configOnly uint64, out uint32) (bool, error) {
		ok, err := in.call("decode", uint64(src), uint64(len(data)), configOnly, uint64(w), uint64(h), uint64(cs), uint64(chroma), uint64(fields+16), uint64(out))
		return ok != 0, err
	}
	if ok, err := decode(1, 0); err != nil || !ok {
		return fail(errDecoder(err))
	}
	width, height := int(in.u32(w)), int(in.u32(h))
	if width <= 0 || height <= 0 {
		return fail(errDecoder(nil))
	}
	if int64(width)*int64(height) > maxPixels {
		return nil, limitErr(string(HEIC), "pixels", maxPixels, int64(width)*int64(height))
	}
	rect := image.Rect(0, 0, width, height)
	var size, stride, yw, cw, ch int
	var ratio image.YCbCrSubsampleRatio
	space := in.u32(cs)
	switch space {
	case heifColorspaceYCbCr:
		switch in.u32(chroma) {
		case heifChroma420:
			ratio, cw, ch = image.YCbCrSubsampleRatio420, (width+1)/2, (height+1)/2
		case heifChroma422:
			ratio, cw, ch = image.YCbCrSubsampleRatio422, (width+1)/2, height
		case heifChroma444:
			ratio, cw, ch = image.YCbCrSubsampleRatio444, width, height
		default:
			return nil, unsupported(string(HEIC), "chroma format")
		}
		yw, cw = heifStride(width, 1), heifStride(cw, 1)
		size = yw*height + 2*cw*ch
	case heifColorspaceMonochrome:
		stride = heifStride(width, 1)
		size = stride * height
	case heifColorspaceRGB:
		stride = heifStride(width, 4)
		size = stride * height
	default:
		return nil, unsupported(string(HEIC), "colour space")
	}
	pix, err := in.decodeOut(ctx, size, decode)
	if err != nil {
		return fail(err) // ctx's error when it ended
	}
	// Copied out of the instance's memory, which is dropped on return:
	// the picture is a fraction of what the decoder needed.
	pix = append([]byte(nil), pix...)
	switch space {
	case heifColorspaceYCbCr:
		i0, i1 := yw*height, yw*height+cw*ch
		return &image.YCbCr{Y: pix[:i0:i0], Cb: pix[i0:i1:i1], Cr: pix[i1:], YStride: yw, CStride: cw, SubsampleRatio: ratio, Rect: rect}, nil
	case heifColorspaceMonochrome:
		return &image.Gray{Pix: pix, Stride: stride, Rect: rect}, nil
	default:
		if in.u32(fields+16) == 1 {
			return &image.RGBA{Pix: pix, Stride: stride, Rect: rect}, nil
		}
		return &image.NRGBA{Pix: pix, Stride: stride, Rect: rect}, nil
	}
}
