package imageconv

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
)

// Info is what can be said of an image without looking at it: read from
// its header and metadata, never by decoding its pixels, so it is cheap
// and safe to get for any file ([Converter.Describe]). It never holds a
// location: GPS tags are not read.
type Info struct {
	// Format is the image's format, found from its content.
	Format Format
	// Width and Height are the picture's size as it is shown, in pixels:
	// after the rotation its orientation asks for.
	Width, Height int
	// Frames is the number of frames of an animation, pages of a TIFF, or
	// pictures of a HEIF file; 1 for a still image. Only the first is
	// converted.
	Frames int
	// Animated reports an animation (GIF, WebP, PNG, AVIF sequence), as
	// opposed to pages or a burst of stills.
	Animated bool
	// Color describes the pixels: "RGB", "RGB with alpha", "grayscale",
	// "paletted", "CMYK", "YCbCr"; "" when unknown.
	Color string
	// Taken is when the photograph was taken, from EXIF, as
	// "2024-03-01 18:00:00" with the offset from UTC when the file gives
	// it ("2024-03-01 18:00:00 +01:00"); "" when absent.
	Taken string
	// Make, Model and Software are the camera's maker and model and the
	// software that wrote the file, from EXIF; "" when absent.
	Make, Model, Software string
	// Orientation is the EXIF orientation, 1 to 8 (1: upright; 6: turn 90°
	// clockwise to view), or 0 when the file has none. For HEIC and AVIF
	// it is the container's rotation and mirror, as the same numbers.
	Orientation int
	// SVGText is an SVG's title, description and the text of its text
	// elements, joined by newlines and cut at 2,000 characters; "" for
	// other formats.
	SVGText string
}

// Text returns the info as a few lines for a model that cannot see the
// image:
//
//	Image: HEIC, 3024 × 4032 pixels, YCbCr
//	Taken: 2024-03-01 18:00:00 +01:00
//	Camera: Apple iPhone 13
//	Software: 17.1
//
// Lines with nothing to say are left out.
func (i *Info) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Image: %s", i.Format)
	if i.Width > 0 && i.Height > 0 {
		fmt.Fprintf(&b, ", %d × %d pixels", i.Width, i.Height)
	}
	if i.Color != "" {
		b.WriteString(", " + i.Color)
	}
	b.WriteString("\n")
	if i.Frames > 1 {
		switch {
		case i.Animated:
			fmt.Fprintf(&b, "Animated: %d frames\n", i.Frames)
		case i.Format == TIFF:
			fmt.Fprintf(&b, "Pages: %d\n", i.Frames)
		default:
			fmt.Fprintf(&b, "Pictures: %d\n", i.Frames)
		}
	}
	if i.Taken != "" {
		b.WriteString("Taken: " + i.Taken + "\n")
	}
	if cam := i.camera(); cam != "" {
		b.WriteString("Camera: " + cam + "\n")
	}
	if i.Software != "" {
		b.WriteString("Software: " + i.Software + "\n")
	}
	if i.Orientation > 1 {
		b.WriteString("Orientation: " + orientationText(i.Orientation) + "\n")
	}
	if i.SVGText != "" {
		b.WriteString("Text in the image:\n" + i.SVGText + "\n")
	}
	return b.String()
}

// camera joins make and model, leaving out the make when the model
// already starts with it ("Canon Canon EOS R5").
func (i *Info) camera() string {
	switch {
	case i.Model == "":
		return i.Make
	case i.Make == "" || strings.HasPrefix(strings.ToLower(i.Model), strings.ToLower(strings.Fields(i.Make)[0])):
		return i.Model
	}
	return i.Make + " " + i.Model
}

// orientationText says how a picture stored with EXIF orientation o is
// turned to be shown.
func orientationText(o int) string {
	s := [...]string{
		2: "mirrored left to right",
		3: "rotated 180°",
		4: "mirrored top to bottom",
		5: "mirrored and rotated 90° clockwise",
		6: "rotated 90° clockwise",
		7: "mirrored and rotated 90° anticlockwise",
		8: "rotated 90° anticlockwise",
	}
	if o < 2 || o > 8 {
		return ""
	}
	return s[o] + " (EXIF orientation " + strconv.Itoa(o) + ")"
}

// colorName names a decoder's colour model.
func colorName(m color.Model, alpha bool) string {
	switch m {
	case color.GrayModel, color.Gray16Model:
		return "grayscale"
	case color.YCbCrModel:
		return "YCbCr"
	case color.CMYKModel:
		return "CMYK"
	case color.RGBAModel, color.RGBA64Model, color.NRGBAModel, color.NRGBA64Model:
		if alpha {
			return "RGB with alpha"
		}
		return "RGB"
	case color.NYCbCrAModel:
		return "YCbCr with alpha"
	}
	if p, ok := m.(color.Palette); ok {
		if len(p) == 0 { // a GIF whose frames have palettes of their own
			return "paletted"
		}
		return "paletted, " + strconv.Itoa(len(p)) + " colours"
	}
	return ""
}
