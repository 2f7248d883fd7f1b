package imageconv

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"math"

	"github.com/fyne-io/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/math/fixed"
)

// minSVGSide is the long side an SVG smaller than it is drawn at: a
// 16-pixel icon drawn at 16 pixels shows a model nothing, and a vector
// drawing loses nothing by being drawn larger.
const minSVGSide = 1024

// svgWorkPerPixel bounds the drawing work of an SVG, in units of the
// canvas's area: each path costs the pixels of its extent (the
// rasteriser sweeps them) plus a pixel's worth per line segment. 64
// canvases' worth took 0.83 s of CPU on the machine it was measured on
// (BENCHMARKS.md), so 32 keep a hostile file near 0.4 s; real drawings,
// whose paths are mostly small, use a few canvases' worth, while a file
// of thousands of canvas-sized shapes is stopped here.
const svgWorkPerPixel = 32

// rasterSVG draws the header's SVG on white, at its size scaled to fit t
// (and up to minSVGSide for a small one).
func (c *Converter) rasterSVG(ctx context.Context, h *header, t Target) (img image.Image, done []string, err error) {
	doc := h.svg
	s := math.Min(float64(t.MaxSide)/doc.width, float64(t.MaxSide)/doc.height)
	s = math.Min(s, math.Sqrt(float64(t.MaxPixels)/(doc.width*doc.height)))
	if long := math.Max(doc.width, doc.height); long*s > minSVGSide {
		s = math.Min(s, math.Max(1, minSVGSide/long))
	}
	w, hh := max(1, int(doc.width*s)), max(1, int(doc.height*s))
	switch {
	case s > 1:
		done = append(done, fmt.Sprintf("drawn at %d × %d from %g × %g", w, hh, round2(doc.width), round2(doc.height)))
	case s < 1:
		done = append(done, fmt.Sprintf("drawn at %d × %d to fit %d pixels a side and %d in all", w, hh, t.MaxSide, t.MaxPixels))
	}
	if doc.texts > 0 {
		done = append(done, fmt.Sprintf("%d text elements not drawn (no fonts here); their text is in the description", doc.texts))
	}
	if doc.images > 0 {
		done = append(done, fmt.Sprintf("%d embedded pictures not drawn", doc.images))
	}
	defer func() {
		if r := recover(); r != nil {
			if stop, ok := r.(svgStop); ok {
				img, done, err = nil, nil, stop.err
				return
			}
			img, done, err = nil, nil, formatErr(string(SVG), "the drawing library failed", fmt.Errorf("panic: %v", r))
		}
	}()
	icon, err := oksvg.ReadIconStream(bytes.NewReader(doc.clean))
	if err != nil {
		return nil, nil, formatErr(string(SVG), "parse for drawing", err)
	}
	if icon.ViewBox.W <= 0 || icon.ViewBox.H <= 0 {
		icon.ViewBox.X, icon.ViewBox.Y, icon.ViewBox.W, icon.ViewBox.H = 0, 0, doc.width, doc.height
	}
	icon.SetTarget(0, 0, float64(w), float64(hh))
	canvas := image.NewRGBA(image.Rect(0, 0, w, hh))
	draw.Draw(canvas, canvas.Rect, image.White, image.Point{}, draw.Src)
	area := int64(w) * int64(hh)
	sc := &budgetScanner{ScannerGV: rasterx.NewScannerGV(w, hh, canvas, canvas.Bounds()), ctx: ctx, max: svgWorkPerPixel * area, w: w, h: hh}
	raster := rasterx.NewDasher(w, hh, sc)
	for i := range icon.SVGPaths {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		icon.SVGPaths[i].DrawTransformed(raster, 1, icon.Transform)
	}
	return canvas, done, nil
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// svgStop is panicked by budgetScanner to leave the drawing library
// mid-path, and recovered by rasterSVG: the library has no way to stop.
type svgStop struct{ err error }

// budgetScanner counts the work of the rasteriser it wraps and stops it
// when the context ends or the work passes max.
type budgetScanner struct {
	*rasterx.ScannerGV
	ctx        context.Context
	work, max  int64
	w, h       int
	sinceCheck int
}

func (s *budgetScanner) Line(b fixed.Point26_6) {
	s.work++
	s.check(1)
	s.ScannerGV.Line(b)
}

func (s *budgetScanner) Draw() {
	e := s.GetPathExtent()
	x0, y0 := max(0, e.Min.X.Floor()), max(0, e.Min.Y.Floor())
	x1, y1 := min(s.w, e.Max.X.Ceil()), min(s.h, e.Max.Y.Ceil())
	if x1 > x0 && y1 > y0 {
		s.work += int64(x1-x0) * int64(y1-y0)
	}
	s.check(4096)
	s.ScannerGV.Draw()
}

func (s *budgetScanner) check(n int) {
	s.sinceCheck += n
	if s.sinceCheck < 4096 && s.work <= s.max {
		return
	}
	s.sinceCheck = 0
	if err := s.ctx.Err(); err != nil {
		panic(svgStop{err})
	}
	if s.work > s.max {
		panic(svgStop{limitErr(string(SVG), "units of drawing work (pixels swept and segments drawn)", s.max, 0)})
	}
}
