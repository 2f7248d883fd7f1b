package imageconv

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// header is what the file's header says: the [Info], and what decoding
// needs to know.
type header struct {
	info Info
	// width and height are the picture as stored, before orientation.
	width, height int
	orient        orientation
	// photo reports a lossy-coded picture, which becomes a JPEG.
	photo bool
	heif  *heifFile
	webp  webpAnim
	svg   *svgDoc
}

// header reads the input's header and checks it against the limits,
// before anything is decoded.
func (c *Converter) header(ctx context.Context, in Input) (*header, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data := in.Data
	if int64(len(data)) > c.lim.MaxInput {
		return nil, limitErr(string(Sniff(in.Name, in.MediaType, data)), "input bytes", c.lim.MaxInput, int64(len(data)))
	}
	f := Sniff(in.Name, in.MediaType, data)
	if f == "" {
		return nil, unsupported("", "the content is no image this package reads (PNG, JPEG, GIF, BMP, TIFF, WebP, HEIC, AVIF, SVG)")
	}
	h := &header{info: Info{Format: f, Frames: 1}}
	var err error
	switch f {
	case HEIC, AVIF:
		err = h.readHEIF(data)
	case SVG:
		err = h.readSVG(data, c.lim)
	default:
		err = h.readRaster(data, c.lim)
	}
	if err != nil {
		return nil, err
	}
	if px := int64(h.width) * int64(h.height); px > c.lim.MaxPixels {
		return nil, limitErr(string(h.info.Format), "pixels", c.lim.MaxPixels, px)
	}
	if h.info.Frames > c.lim.MaxFrames {
		h.info.Frames = c.lim.MaxFrames
	}
	h.info.Width, h.info.Height = h.width, h.height
	if h.orient.swaps() {
		h.info.Width, h.info.Height = h.height, h.width
	}
	if h.orient != (orientation{}) {
		h.info.Orientation = h.orient.exif()
	}
	return h, nil
}

// readRaster reads the header of a format Go's and x/image's decoders
// read, with the decoder's own DecodeConfig (which reads only the header)
// and the metadata readers of this package.
func (h *header) readRaster(data []byte, lim Limits) error {
	f := h.info.Format
	var cfg image.Config
	var err error
	var exif []byte
	r := bytes.NewReader(data)
	switch f {
	case PNG:
		cfg, err = png.DecodeConfig(r)
		exif = pngEXIF(data)
		if n := pngFrames(data); n > 1 {
			h.info.Frames, h.info.Animated = n, true
		}
	case JPEG:
		cfg, err = jpeg.DecodeConfig(r)
		exif = jpegEXIF(data)
		h.photo = true
	case GIF:
		cfg, err = gif.DecodeConfig(r)
		if n := gifFrames(data, lim.MaxFrames); n > 1 {
			h.info.Frames, h.info.Animated = n, true
		}
	case BMP:
		cfg, err = bmp.DecodeConfig(r)
	case TIFF:
		cfg, err = tiff.DecodeConfig(r)
		exif = data
		h.info.Frames = max(1, tiffPages(data, lim.MaxFrames))
	case WebP:
		h.webp = readWebP(data, lim.MaxFrames)
		exif = h.webp.exif
		if h.webp.frames > 0 {
			h.info.Frames, h.info.Animated = h.webp.frames, h.webp.frames > 1
			cfg = image.Config{Width: h.webp.canvasW, Height: h.webp.canvH, ColorModel: color.NRGBAModel}
			if h.webp.first == nil || h.webp.canvasW == 0 {
				err = fmt.Errorf("animation without a readable first frame")
			}
		} else {
			cfg, err = webp.DecodeConfig(r)
		}
		h.photo = bytes.Contains(data[:min(len(data), 64)], []byte("VP8 "))
	}
	if err != nil {
		return decodeErr(f, "read the header", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return formatErr(string(f), "the header gives no size", nil)
	}
	h.width, h.height = cfg.Width, cfg.Height
	h.info.Color = colorName(cfg.ColorModel, cfg.ColorModel == color.NRGBAModel || cfg.ColorModel == color.NRGBA64Model)
	if exif != nil {
		h.setEXIF(readEXIF(exif), f != TIFF)
	}
	return nil
}

// setEXIF records EXIF facts; orient says whether the format's picture is
// stored as the EXIF orientation says (not so for HEIF, whose container
// rotation is authoritative and which decoders apply).
func (h *header) setEXIF(x exifFacts, orient bool) {
	h.info.Make, h.info.Model, h.info.Software, h.info.Taken = x.Make, x.Model, x.Software, x.Taken
	if orient {
		h.orient = fromEXIF(x.Orientation)
	}
}

// readHEIF reads a HEIC or AVIF container.
func (h *header) readHEIF(data []byte) error {
	hf, err := parseHEIF(data)
	if err != nil {
		return formatErr(string(h.info.Format), "read the container", err)
	}
	h.heif = hf
	switch hf.Codec {
	case "hvc1":
		h.info.Format = HEIC
	case "av01":
		h.info.Format = AVIF
	case "":
		if hf.Frames == 0 {
			return formatErr(string(h.info.Format), "the container has no picture", nil)
		}
		if h.info.Format == HEIC {
			return unsupported(string(HEIC), "an image sequence without a still picture")
		}
	default:
		return unsupported(string(h.info.Format), fmt.Sprintf("pictures coded as %q", hf.Codec))
	}
	h.photo = true
	h.width, h.height = hf.Width, hf.Height
	if hf.Width == 0 {
		h.width, h.height = hf.TrackWidth, hf.TrackHeight
	}
	if h.width <= 0 || h.height <= 0 {
		return formatErr(string(h.info.Format), "the container gives no size", nil)
	}
	h.info.Frames = max(1, hf.Images)
	if hf.Frames > 1 {
		h.info.Frames, h.info.Animated = hf.Frames, true
	}
	h.orient = fromHEIF(hf.Rotation, hf.Mirror)
	if hf.Exif != nil {
		h.setEXIF(readEXIF(hf.Exif), false)
	}
	return nil
}

// decodeErr classifies a decoder's error: an unsupported feature of a
// format Go reads, else a malformed file.
func decodeErr(f Format, what string, err error) error {
	switch err.(type) {
	case tiff.UnsupportedError, png.UnsupportedError, jpeg.UnsupportedError:
		return &UnsupportedError{Format: string(f), Feature: err.Error()}
	}
	if err == bmp.ErrUnsupported {
		return &UnsupportedError{Format: string(f), Feature: err.Error()}
	}
	return formatErr(string(f), what, err)
}
