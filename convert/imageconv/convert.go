package imageconv

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/convert/internal/limit"
)

// Input is an image to convert or describe.
type Input struct {
	// Name is the file's name as the sender gave it; only its extension
	// is used, to recognise a gzipped SVG (.svgz). It may be empty.
	Name string
	// MediaType is the media type as the sender gave it; it may be empty
	// or wrong: the content decides.
	MediaType string
	// Data is the file's content. It is never modified.
	Data []byte
}

// Image is a converted image, ready to be sent to a model in place of the
// one it refused.
type Image struct {
	// MediaType is "image/png" or "image/jpeg", or the input's own media
	// type when the input was passed through unchanged.
	MediaType string
	// Data is the encoded image. When the input was passed through, it is
	// the input's Data itself, not a copy.
	Data []byte
	// Width and Height are the image's size in pixels.
	Width, Height int
	// Quality is the JPEG quality used, 0 for a PNG or a pass-through.
	Quality int
	// Source describes the input.
	Source Info
	// Done says what was done to the input, in order, for a label: "first
	// of 3 pages", "turned upright (EXIF orientation 6)", "scaled from
	// 9000 × 6000 to fit 8000 pixels a side", "JPEG quality 75 to fit
	// 3932160 bytes", "transparency flattened onto white". Empty when
	// the input was passed through.
	Done []string
}

// Summary says what the conversion was in one line, such as
// "HEIC 4032 × 3024 → JPEG 2000 × 1500", followed by what was done, after
// a semicolon.
func (im *Image) Summary() string {
	out := strings.ToUpper(strings.TrimPrefix(im.MediaType, "image/"))
	if out == "SVG+XML" {
		out = "SVG"
	}
	s := fmt.Sprintf("%s %d × %d → %s %d × %d", im.Source.Format, im.Source.Width, im.Source.Height, out, im.Width, im.Height)
	if len(im.Done) > 0 {
		s += "; " + strings.Join(im.Done, "; ")
	}
	return s
}

// Options configure a [Converter]. The zero value is ready to use.
type Options struct {
	// Limits bound what reading one image may cost; zero fields take
	// their defaults.
	Limits Limits
	// CacheDir, when not "", is a directory where the machine code
	// compiled from the HEIC and AVIF decoders is kept, so that a later
	// process starts decoding at once instead of compiling first (see
	// BENCHMARKS.md for the cost). It is made if missing. "" keeps the
	// code in memory, compiled once per Converter.
	CacheDir string
	// Concurrent caps the HEIC and AVIF decodes that run at once, each
	// with its own memory; default the number of CPUs.
	Concurrent int
}

// Converter converts and describes images. It is safe for concurrent
// use. It holds the compiled HEIC and AVIF decoders: make one and keep it
// (or use [Default]); [Converter.Close] frees them.
type Converter struct {
	lim  Limits
	wasm *wasmEngine
}

// New returns a Converter with the given options.
func New(opts Options) *Converter {
	lim := opts.Limits.withDefaults()
	n := opts.Concurrent
	limit.Default(&n, runtime.NumCPU())
	return &Converter{lim: lim, wasm: newWasmEngine(opts.CacheDir, lim.MaxDecoderMemory, n)}
}

var defaultConverter = sync.OnceValue(func() *Converter { return New(Options{}) })

// Default returns a Converter with the default options, shared by the
// process and made on first use.
func Default() *Converter { return defaultConverter() }

// Warm compiles the HEIC and AVIF decoders now, so that the first image
// of either format does not wait for it; a server may call it in the
// background at start. Without it each decoder is compiled on first use.
func (c *Converter) Warm(ctx context.Context) error {
	for _, f := range []Format{HEIC, AVIF} {
		if _, err := c.wasm.module(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// Close frees the compiled decoders. The Converter must not be used
// after.
func (c *Converter) Close(ctx context.Context) error { return c.wasm.close(ctx) }

// Describe returns what can be said of the image without decoding its
// pixels (format, size, frames, colours, EXIF date, camera, orientation,
// software), for a model that cannot see images. The errors are those of
// [Converter.Convert] that the header alone shows.
func (c *Converter) Describe(ctx context.Context, in Input) (*Info, error) {
	h, err := c.header(ctx, in)
	if err != nil {
		return nil, err
	}
	return &h.info, nil
}

// Convert turns the image into a PNG or a JPEG within t (its zero fields
// take their defaults), or passes it through unchanged when t accepts it
// as it is: of a media type t accepts, within its bytes, sides and
// pixels, still, and upright.
//
// The picture converted is the first frame of an animation, the first
// page of a TIFF, the primary picture of a HEIC or AVIF; it is turned
// upright as its EXIF orientation (or HEIF rotation and mirror) says, and
// scaled down to fit t's sides and pixels. Graphics (PNG, GIF, BMP, TIFF,
// lossless WebP, SVG) become a PNG if one fits t.MaxBytes; photographs
// (JPEG, HEIC, AVIF, lossy WebP), and graphics whose PNG would not fit,
// become a JPEG, its quality stepped down from 85 to 45 and then its size
// until it fits.
//
// Errors: [*LimitError] (matching [ErrLimit]) for a file over a [Limits]
// field, found from its header before decoding; an error matching
// [ErrUnsupported] for content that is no image this package reads or an
// unsupported variant; [*FormatError] for a malformed file; the
// context's error. A cancelled context returns at once; see the package
// documentation for what happens to a HEIC or AVIF decode then running.
func (c *Converter) Convert(ctx context.Context, in Input, t Target) (*Image, error) {
	h, err := c.header(ctx, in)
	if err != nil {
		return nil, err
	}
	t = t.withDefaults()
	if h.passes(t, int64(len(in.Data))) {
		return &Image{MediaType: h.info.Format.MediaType(), Data: in.Data, Width: h.info.Width, Height: h.info.Height, Source: h.info}, nil
	}
	img, done, err := c.decode(ctx, in.Data, h, t)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := fit(ctx, img, h, t)
	if err != nil {
		return nil, err
	}
	out.Source = h.info
	out.Done = append(done, out.Done...)
	return out, nil
}

// passes reports whether the input can go to the target as it is.
func (h *header) passes(t Target, size int64) bool {
	i := h.info
	return t.accepts(i.Format.MediaType()) && size <= t.MaxBytes &&
		i.Width <= t.MaxSide && i.Height <= t.MaxSide && int64(i.Width)*int64(i.Height) <= t.MaxPixels &&
		h.orient == (orientation{}) && !i.Animated && !(i.Format == TIFF && i.Frames > 1)
}

// accepts reports whether the target takes mediaType as it is.
func (t Target) accepts(mediaType string) bool {
	for _, a := range t.Accepts {
		a = keel.NormalizeMediaType(a)
		if a == "image/jpg" {
			a = "image/jpeg"
		}
		if a == mediaType {
			return true
		}
	}
	return false
}
