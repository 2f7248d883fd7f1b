// Package imageconv turns an image a model refused into one it takes, and
// says what can be said of an image without looking at it.
//
// A model refuses an image for its format (HEIC from a phone, TIFF from a
// scanner, BMP, AVIF, SVG), its size (more bytes or pixels than the
// provider takes), or its class (a text-only model). For the first two,
// [Converter.Convert] returns a PNG or JPEG within the provider's limits
// (a [Target]) to send in the refused image's place; for the third,
// [Converter.Describe] returns an [Info] whose [Info.Text] goes in the
// note:
//
//	conv := imageconv.Default()
//	in := imageconv.Input{Name: "IMG_0042.HEIC", MediaType: "image/heic", Data: data}
//	im, err := conv.Convert(ctx, in, imageconv.Anthropic())
//	// im.MediaType "image/jpeg"; im.Summary(): "HEIC 4032 × 3024 → JPEG 4032 × 3024"
//	info, err := conv.Describe(ctx, in)
//	// info.Text(): "Image: HEIC, 4032 × 3024 pixels\nTaken: 2024-03-01 18:00:00 +01:00\nCamera: Apple iPhone 13\n"
//
// # Formats
//
//   - PNG, JPEG, GIF: Go's decoders. A GIF's or APNG's frames are counted
//     from its blocks without decoding them; the first is converted.
//   - BMP, TIFF, WebP: golang.org/x/image. A TIFF's pages are counted from
//     its directory chain, the first converted; an animated WebP's first
//     frame is taken out of its ANMF chunk and decoded as a still.
//   - HEIC and AVIF: libheif with libde265, and libavif with libaom,
//     compiled to WebAssembly and run by wazero (see below). The container
//     is read in Go first: the primary picture's codec, size, rotation and
//     mirror, the pictures and frames it holds, its EXIF.
//   - SVG (and gzipped .svgz): checked and rewritten by this package, then
//     drawn by github.com/fyne-io/oksvg and github.com/srwiley/rasterx,
//     pure Go, on white, at least 1024 pixels on its long side (a vector
//     drawing loses nothing by being drawn larger) and within the target.
//     They draw shapes, paths, strokes, dashes and gradients; not text
//     (there are no fonts here: the text is in [Info.SVGText], and the
//     result's Done says how many text elements were left out), embedded
//     pictures, filters, clip paths, masks, markers or patterns (left out
//     rather than drawn wrong).
//
// # What Convert does
//
// An image of a media type the target accepts, within its bytes, sides and
// pixels, still and upright, is passed through as it is. Otherwise the
// first frame, page or primary picture is decoded, scaled down (Catmull-Rom)
// to fit [Target].MaxSide and MaxPixels, turned upright as its EXIF
// orientation says (HEIF's rotation and mirror for HEIC and AVIF; libheif
// applies them itself), and encoded: a graphic (PNG, GIF, BMP, TIFF,
// lossless WebP, SVG) as a PNG when one fits MaxBytes, a photograph (JPEG,
// HEIC, AVIF, lossy WebP) or a graphic whose PNG would not fit as a JPEG,
// at quality 85, then 75, 60, 45, then smaller, until it fits. A JPEG made
// from a picture with transparency is flattened onto white. [Image.Done]
// says each of these steps, for the label; the result carries no metadata.
//
// [Anthropic], [OpenAI] and [Gemini] return the providers' documented
// limits; the zero Target takes Anthropic's, the strictest.
//
// # Describing without looking
//
// [Converter.Describe] reads the header and metadata only, never the
// pixels: format, size as shown, frames or pages, colour model, and from
// EXIF the date taken (with its UTC offset when given), camera make and
// model, orientation and software. The EXIF reader looks up those tags by
// number and never follows the GPS directory, so no location can come out
// of it whatever the file holds. An SVG's title, description and text are
// given too.
//
// # Hostile files
//
// Every size is checked from the header before anything is decoded: a
// PNG of a few kilobytes declaring 50,000 × 50,000 pixels gets a
// [*LimitError] naming [Limits].MaxPixels without allocating its 10 GB.
// The HEIC and AVIF decoders run with a memory budget computed from the
// picture the container declares (measured bytes per pixel, with a third
// more): if the coded stream is larger than declared, the decoder's
// allocations fail inside its sandbox and the call gets a [*LimitError]
// (libheif crops such a picture to what the container declares). SVGs
// are refused with a typed error when they declare entities, nest deeper
// than [Limits].MaxDepth, hold more than [Limits].MaxElements elements
// (counting those a <use> repeats), put a <use> inside <defs>, or refer
// to anything outside the file (an href or a CSS url() or @import that is
// not "#id" or a data: URI): nothing is ever fetched. Drawing is bounded
// too: the rasteriser's work (pixels swept, segments drawn) is counted and
// stopped at 32 canvases' worth. Decoders that panic on a malformed file
// give a [*FormatError].
//
// Errors: [*LimitError] (matching [ErrLimit]), [*UnsupportedError]
// (matching [ErrUnsupported]: no image this package reads, or a variant
// it cannot decode, such as JPEG-compressed TIFF or an SVG referring to
// another file), [*FormatError], and the context's error.
//
// # Cancellation
//
// A cancelled context stops a conversion between steps, the SVG
// rasteriser mid-path, and returns at once from a HEIC or AVIF decode.
// The decode itself cannot be interrupted: wazero can stop WebAssembly
// only by checking at every loop iteration, which was measured to make
// these decoders about five times slower (BENCHMARKS.md). So a decode
// whose caller gave up finishes in the background, within its memory
// budget and holding one of [Options].Concurrent slots, and its result is
// dropped.
//
// # The WebAssembly decoders
//
// The modules are those published by github.com/gen2brain/heic and
// github.com/gen2brain/avif; this package runs them itself (wasm.go,
// wasmsrc.go) to bound their memory, keep their output off the process's
// stdout, and never load a libheif.so found on the machine instead. No
// cgo is involved: go install keeps working. Each module is compiled to
// machine code once per [Converter], on first use or by [Converter.Warm]
// (a few seconds; BENCHMARKS.md has the figures); with [Options].CacheDir
// the compiled code is kept on disk for later processes. The two
// decoders and wazero add about 7 MB to a binary.
package imageconv
