package imageconv

import (
	"image"
	"image/draw"
)

// orientation is how a stored picture is turned to be shown: mirrored left
// to right first when mirror is set, then rotated rot quarter turns
// clockwise. The eight EXIF orientations are the eight such pairs.
type orientation struct {
	mirror bool
	rot    int
}

// fromEXIF returns EXIF orientation o (1 to 8) as a pair; anything else is
// upright.
func fromEXIF(o int) orientation {
	switch o {
	case 2:
		return orientation{true, 0}
	case 3:
		return orientation{false, 2}
	case 4:
		return orientation{true, 2}
	case 5:
		return orientation{true, 3} // transpose
	case 6:
		return orientation{false, 1}
	case 7:
		return orientation{true, 1} // transverse
	case 8:
		return orientation{false, 3}
	}
	return orientation{}
}

// exif returns the orientation's EXIF number.
func (o orientation) exif() int {
	for n := 1; n <= 8; n++ {
		if fromEXIF(n) == o {
			return n
		}
	}
	return 1
}

// fromHEIF returns the orientation of a HEIF item with irot (anticlockwise
// quarter turns) and imir (0 none; 1 top to bottom, 2 left to right: the
// field's value plus one, read as libheif and libavif read it, though the
// first edition of the standard called the field an axis and was read the
// other way by some), which MIAF applies in that order: rotate, then
// mirror. Rotating by r and then mirroring left to right is mirroring and
// then rotating by -r; top to bottom is left to right and a half turn.
func fromHEIF(irot, imir int) orientation {
	cw := (4 - irot%4) % 4
	switch imir {
	case 1:
		return orientation{true, (6 - cw) % 4}
	case 2:
		return orientation{true, (4 - cw) % 4}
	}
	return orientation{false, cw}
}

// swaps reports whether the orientation exchanges width and height.
func (o orientation) swaps() bool { return o.rot%2 == 1 }

// apply returns m turned as o says, as a new *image.RGBA (m itself when o
// is upright). It is meant for a picture already scaled to its output
// size, where turning is cheap.
func (o orientation) apply(m image.Image) image.Image {
	if o == (orientation{}) {
		return m
	}
	src, ok := m.(*image.RGBA)
	if !ok {
		b := m.Bounds()
		src = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(src, src.Rect, m, b.Min, draw.Src)
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := w, h
	if o.swaps() {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		row := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+y):]
		for x := range w {
			sx := x
			if o.mirror {
				sx = w - 1 - x
			}
			var dx, dy int
			switch o.rot {
			case 0:
				dx, dy = x, y
			case 1:
				dx, dy = h-1-y, x
			case 2:
				dx, dy = w-1-x, h-1-y
			case 3:
				dx, dy = y, w-1-x
			}
			copy(dst.Pix[dy*dst.Stride+4*dx:dy*dst.Stride+4*dx+4], row[4*sx:4*sx+4])
		}
	}
	return dst
}
