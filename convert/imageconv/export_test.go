package imageconv

import (
	"context"
	"image"
)

// DecodeHEIFWithBudget decodes a HEIC or AVIF file's picture with a
// decoder memory budget of budget bytes, for the tests of the budget and
// the decoders' benchmarks.
func (c *Converter) DecodeHEIFWithBudget(ctx context.Context, data []byte, budget int64) (image.Image, error) {
	f := Sniff("", "", data)
	var expect int64 = 64 << 20
	if hf, err := parseHEIF(data); err == nil {
		_, expect = decoderBudget(f, int64(hf.Width), int64(hf.Height), int64(len(data)))
	}
	expect = min(expect, budget)
	if f == AVIF {
		return c.wasm.decodeAVIF(ctx, data, budget, expect, c.lim.MaxPixels)
	}
	return c.wasm.decodeHEIC(ctx, data, budget, expect, c.lim.MaxPixels)
}

// NewInterruptible returns a Converter whose HEIC and AVIF decoders stop
// when the context ends, at wazero's cost, for the benchmark that
// measures it.
func NewInterruptible(opts Options) *Converter {
	c := New(opts)
	c.wasm.interruptible = true
	return c
}

// Scale is the package's scaler, for the benchmark comparing it with
// x/image/draw's.
func Scale(m image.Image, w, h int) image.Image { return scale(m, w, h, false) }
