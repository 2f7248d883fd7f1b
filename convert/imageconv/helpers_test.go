package imageconv_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The test picture: 240 × 120, the left half red, the right half blue,
// and a white 40 × 40 square near the top-left corner, so that a test can
// tell which way up a converted picture is and whether it was mirrored.
const picW, picH = 240, 120

var (
	red   = color.RGBA{255, 0, 0, 255}
	blue  = color.RGBA{0, 0, 255, 255}
	white = color.RGBA{255, 255, 255, 255}
)

func picture() *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, picW, picH))
	for y := range picH {
		for x := range picW {
			c := red
			if x >= picW/2 {
				c = blue
			}
			if x >= 10 && x < 50 && y >= 10 && y < 50 {
				c = white
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

func encodePNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// near reports whether two colours differ by at most tol in each channel.
func near(a, b color.Color, tol int) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return abs(int(x>>8)-int(y>>8)) <= tol }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// checkPicture checks that m shows the test picture scaled to m's size:
// red left, blue right, the white square top left.
func checkPicture(t *testing.T, m image.Image, tol int) {
	t.Helper()
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	at := func(fx, fy float64) color.Color { return m.At(b.Min.X+int(fx*float64(w)), b.Min.Y+int(fy*float64(h))) }
	for _, p := range []struct {
		fx, fy float64
		want   color.RGBA
		what   string
	}{
		{0.25, 0.75, red, "lower left"},
		{0.75, 0.5, blue, "right"},
		{30.0 / picW, 30.0 / picH, white, "square top left"},
		{0.9, 0.1, blue, "top right"},
	} {
		if c := at(p.fx, p.fy); !near(c, p.want, tol) {
			t.Errorf("%s of the converted picture = %v; want %v", p.what, c, p.want)
		}
	}
}

// tool returns the path of an external program the test needs, skipping
// the test when it is missing, or failing it when CI is set (the test
// script installs it).
func tool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (Debian package %s); CI is set, so this fails instead of skipping", name, pkg)
		}
		t.Skipf("%s not found: install Debian's %s to run this test", name, pkg)
	}
	return p
}

var (
	magickOnce    sync.Once
	magickFormats string
)

// magick runs ImageMagick's convert with args in dir and returns the
// named output file's content. It skips (or fails under CI) when
// ImageMagick is missing or cannot write the output's format.
func magick(t testing.TB, dir, out string, args ...string) []byte {
	t.Helper()
	bin := tool(t, "convert", "imagemagick")
	magickOnce.Do(func() {
		b, _ := exec.Command(bin, "-list", "format").Output()
		magickFormats = string(b)
	})
	format := strings.ToUpper(strings.TrimPrefix(filepath.Ext(out), "."))
	if !magickWrites(magickFormats, format) {
		if os.Getenv("CI") != "" {
			t.Fatalf("this ImageMagick cannot write %s; CI is set, so this fails instead of skipping", format)
		}
		t.Skipf("this ImageMagick cannot write %s (its libheif lacks the encoder)", format)
	}
	cmd := exec.Command(bin, append(args, out)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("convert %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	data, err := os.ReadFile(filepath.Join(dir, out))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// magickWrites reports whether `convert -list format` lists format as
// writable ("HEIC* HEIC      rw+   ...").
func magickWrites(list, format string) bool {
	for _, line := range strings.Split(list, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.TrimSuffix(f[0], "*") == format && strings.Contains(f[2], "w") {
			return true
		}
	}
	return false
}

// exiftool runs exiftool with args on file (in place).
func exiftool(t testing.TB, file string, args ...string) {
	t.Helper()
	bin := tool(t, "exiftool", "libimage-exiftool-perl")
	cmd := exec.Command(bin, append(append([]string{"-q", "-overwrite_original"}, args...), file)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("exiftool %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

// writeFile writes data to name in dir and returns its path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// magickFromPicture writes the test picture as a PNG in dir and has
// ImageMagick convert it to out, with extra options before the output.
func magickFromPicture(t testing.TB, dir, out string, opts ...string) []byte {
	t.Helper()
	writeFile(t, dir, "picture.png", encodePNG(t, picture()))
	return magick(t, dir, out, append([]string{"picture.png"}, opts...)...)
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
