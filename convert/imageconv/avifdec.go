package imageconv

import (
	"context"
	"image"
)

// decodeAVIF decodes the first picture of an AVIF file with libavif in
// WebAssembly, as premultiplied RGBA with 8 bits a channel (pictures of
// 10 or 12 bits are decoded at 16 and keep their upper 8). libavif does
// not apply the container's rotation and mirror; the caller does.
//
// The module's function (lib/decode.c of github.com/gen2brain/avif):
//
//	int decode(uint8_t *in, int in_size, int config_only, int decode_all, uint32_t *width,
//	    uint32_t *height, uint32_t *depth, uint32_t *count, uint8_t *delay, uint8_t *out)
func (e *wasmEngine) decodeAVIF(ctx context.Context, data []byte, budget, expect, maxPixels int64) (image.Image, error) {
	in, err := e.instantiate(ctx, AVIF, budget, expect)
	if err != nil {
		return nil, err
	}
	defer e.release(in)
	fail := func(err error) (image.Image, error) { return nil, e.wasmErr(ctx, AVIF, in.mem, err) }

	src, err := in.put(data)
	if err != nil {
		return fail(err)
	}
	fields, err := in.malloc(4*4 + 8)
	if err != nil || fields == 0 {
		return fail(errNoMemory(err))
	}
	w, h, depth, count, delay := fields, fields+4, fields+8, fields+12, fields+16
	decode := func(configOnly uint64, out uint32) (bool, error) {
		ok, err := in.call("decode", uint64(src), uint64(len(data)), configOnly, 0, uint64(w), uint64(h), uint64(depth), uint64(count), uint64(delay), uint64(out))
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
		return nil, limitErr(string(AVIF), "pixels", maxPixels, int64(width)*int64(height))
	}
	bytesPer := 4
	if in.u32(depth) > 8 {
		bytesPer = 8
	}
	size := width * height * bytesPer
	pix, err := in.decodeOut(ctx, size, decode)
	if err != nil {
		return fail(err) // ctx's error when it ended
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	if bytesPer == 4 {
		copy(img.Pix, pix)
	} else {
		// 16-bit samples in the module's byte order (little-endian): the
		// high byte of each is the 8-bit sample.
		for i := range img.Pix {
			img.Pix[i] = pix[2*i+1]
		}
	}
	return img, nil
}
