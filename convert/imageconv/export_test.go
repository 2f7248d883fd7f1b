package imageconv

import (
	"context"
	"image"
)

// DecodeHEIFWithBudget decodes a HEIC or AVIF file's picture with a
// decoder memory budget of budget bytes, for the tests of the budget.
func (c *Converter) DecodeHEIFWithBudget(ctx context.Context, data []byte, budget int64) (image.Image, error) {
	if Sniff("", "", data) == AVIF {
		return c.wasm.decodeAVIF(ctx, data, budget, c.lim.MaxPixels)
	}
	return c.wasm.decodeHEIC(ctx, data, budget, c.lim.MaxPixels)
}
