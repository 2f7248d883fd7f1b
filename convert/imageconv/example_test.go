package imageconv_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/png"

	"github.com/keel-go/keel/convert/imageconv"
)

// A scan too large for the target is scaled to fit it; a graphic stays a
// PNG.
func Example() {
	scan := image.NewGray(image.Rect(0, 0, 2400, 1200))
	for i := range scan.Pix {
		scan.Pix[i] = uint8(i % 251)
	}
	var data bytes.Buffer
	png.Encode(&data, scan)

	im, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Name: "scan.png", Data: data.Bytes()}, imageconv.Target{MaxSide: 1000})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(im.MediaType)
	fmt.Println(im.Summary())
	// Output:
	// image/png
	// PNG 2400 × 1200 → PNG 1000 × 500; scaled from 2400 × 1200 to fit 1000 pixels a side and 1000000 in all
}

// An SVG is drawn on white; its text, which is not drawn, is in the
// source's description.
func ExampleConverter_Convert_svg() {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
	  <title>Sales by region</title>
	  <rect width="120" height="80" fill="steelblue"/>
	  <text x="10" y="95">North: 1,204</text>
	</svg>`
	im, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Name: "chart.svg", Data: []byte(svg)}, imageconv.Anthropic())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(im.Summary())
	fmt.Print(im.Source.Text())
	// Output:
	// SVG 200 × 100 → PNG 1024 × 512; drawn at 1024 × 512 from 200 × 100; 1 text elements not drawn (no fonts here); their text is in the description
	// Image: SVG, 200 × 100 pixels
	// Text in the image:
	// Sales by region
	// North: 1,204
}

// For a model that cannot see images, Describe says what the header does.
func ExampleConverter_Describe() {
	var frames []*image.Paletted
	for i := range 3 {
		f := image.NewPaletted(image.Rect(0, 0, 320, 240), palette.Plan9)
		f.Set(i, i, color.White)
		frames = append(frames, f)
	}
	var data bytes.Buffer
	gif.EncodeAll(&data, &gif.GIF{Image: frames, Delay: []int{5, 5, 5}})

	info, err := imageconv.Default().Describe(context.Background(), imageconv.Input{Name: "spinner.gif", Data: data.Bytes()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(info.Text())
	// Output:
	// Image: GIF, 320 × 240 pixels, paletted
	// Animated: 3 frames
}

// A decompression bomb is refused from its header, with the limit named.
func ExampleLimitError() {
	_, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: pngHeader(50_000, 50_000)}, imageconv.Target{})
	var le *imageconv.LimitError
	fmt.Println(errors.As(err, &le), le.Limit, le.Got)
	fmt.Println(err)
	// Output:
	// true pixels 2500000000
	// imageconv: PNG: image needs 2500000000 pixels, over the limit of 64000000; raise imageconv.Limits to read it
}
