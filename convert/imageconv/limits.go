package imageconv

import "github.com/keel-go/keel/convert/internal/limit"

// Limits bound what reading one image may cost. A zero field takes its
// default; the defaults suit a user's attachments, up to the 50-megapixel
// photographs of current cameras, and keep a hostile file's cost near
// that of a legitimate one: every size is checked from the file's header
// before anything is decoded.
type Limits struct {
	// MaxInput is the largest file accepted, in bytes. Default 64 MiB.
	MaxInput int64
	// MaxPixels caps width × height of the picture a file declares, checked
	// from its header before decoding: a 50,000 × 50,000 PNG of a few
	// kilobytes is refused without allocating its 10 GB. Default
	// 64,000,000 (8000 × 8000).
	MaxPixels int64
	// MaxFrames caps the frames or pages counted in an animation or a
	// multi-page file (only the first is decoded). Default 10,000.
	MaxFrames int
	// MaxDecoderMemory caps the memory of one HEIC or AVIF decoder
	// (WebAssembly linear memory), in bytes. Each decode is given what the
	// picture it declares needs, measured for these decoders, and never
	// more than this. Default 1 GiB.
	MaxDecoderMemory int64
	// MaxElements caps the elements of an SVG, counted before it is
	// parsed for drawing. Default 100,000.
	MaxElements int
	// MaxDepth caps the nesting of an SVG's elements. Default 256.
	MaxDepth int
}

// The default limits.
const (
	DefaultMaxInput         = 64 << 20
	DefaultMaxPixels        = 64_000_000
	DefaultMaxFrames        = 10_000
	DefaultMaxDecoderMemory = 1 << 30
	DefaultMaxElements      = 100_000
	DefaultMaxDepth         = 256
)

// withDefaults returns l with every zero field set to its default.
func (l Limits) withDefaults() Limits {
	limit.Default(&l.MaxInput, DefaultMaxInput)
	limit.Default(&l.MaxPixels, DefaultMaxPixels)
	limit.Default(&l.MaxFrames, DefaultMaxFrames)
	limit.Default(&l.MaxDecoderMemory, DefaultMaxDecoderMemory)
	limit.Default(&l.MaxElements, DefaultMaxElements)
	limit.Default(&l.MaxDepth, DefaultMaxDepth)
	return l
}
