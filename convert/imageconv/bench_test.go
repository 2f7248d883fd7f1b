package imageconv_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/image/draw"

	"github.com/keel-go/keel/convert/imageconv"
)

// Benchmarks, with the figures in BENCHMARKS.md:
//
//	go test -run '^$' -bench . -benchtime 5x ./convert/imageconv/
//
// The 4000 × 3000 photographs are made once per run by ImageMagick (a
// minute or two: x265 and aom encode slowly), from a fractal plasma
// blurred to look like a photograph's detail: a 1.9 MB HEIC, about what a
// phone writes at that size.

var photos sync.Map // name → []byte

func photo(b *testing.B, name string) []byte {
	b.Helper()
	if v, ok := photos.Load(name); ok {
		return v.([]byte)
	}
	dir, err := os.MkdirTemp("", "imageconv-bench")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src.png")
	if _, err := os.Stat(src); err != nil {
		bin := tool(b, "convert", "imagemagick")
		if out, err := exec.Command(bin, "-size", "4000x3000", "-seed", "42", "plasma:fractal", "-blur", "0x2", src).CombinedOutput(); err != nil {
			b.Fatalf("convert: %v\n%s", err, out)
		}
	}
	data := magick(b, dir, name, "src.png", "-quality", "80")
	photos.Store(name, data)
	return data
}

// peakHeap samples the live heap every 200 µs while it runs, as
// runtime/metrics reports it, and returns the highest sample.
type peakHeap struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func startPeakHeap() *peakHeap {
	p := &peakHeap{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			p.peak = max(p.peak, sample[0].Value.Uint64())
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peakHeap) Stop() uint64 {
	close(p.stop)
	p.done.Wait()
	return p.peak
}

// cpuTime is the process's user and system CPU time: on a shared machine
// wall time swings with the load, CPU time much less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs f b.N times and reports CPU time and peak heap per op.
func measure(b *testing.B, f func()) {
	b.ReportAllocs()
	runtime.GC()
	p := startPeakHeap()
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		f()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(p.Stop())/(1<<20), "peak-heap-MiB")
}

func BenchmarkConvertPhoto(b *testing.B) {
	for _, bc := range []struct {
		name, file string
		target     imageconv.Target
	}{
		{"HEIC 4000x3000 to Anthropic", "photo.heic", imageconv.Anthropic()},
		{"HEIC 4000x3000 to OpenAI (2048 a side)", "photo.heic", imageconv.OpenAI()},
		{"AVIF 4000x3000 to Anthropic", "photo.avif", imageconv.Anthropic()},
		{"JPEG 4000x3000 to OpenAI (2048 a side)", "photo.jpg", imageconv.OpenAI()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := photo(b, bc.file)
			if bc.file == "photo.jpg" {
				data = bigJPEG(b)
			}
			c := imageconv.Default()
			if err := c.Warm(context.Background()); err != nil {
				b.Fatal(err)
			}
			var im *imageconv.Image
			measure(b, func() {
				var err error
				if im, err = c.Convert(context.Background(), imageconv.Input{Data: data}, bc.target); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(float64(len(data))/(1<<20), "in-MiB")
			b.ReportMetric(float64(len(im.Data))/(1<<20), "out-MiB")
			b.Logf("%s (%d bytes)", im.Summary(), len(im.Data))
		})
	}
}

// bigJPEG is the plasma photograph as a JPEG of quality 97.
func bigJPEG(b *testing.B) []byte {
	if v, ok := photos.Load("big.jpg"); ok {
		return v.([]byte)
	}
	m, err := imageconv.Default().DecodeHEIFWithBudget(context.Background(), photo(b, "photo.heic"), 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	jpeg.Encode(&out, m, &jpeg.Options{Quality: 97})
	photos.Store("big.jpg", out.Bytes())
	return out.Bytes()
}

// BenchmarkDecodeHEIF is the decoders alone, and the same decoders built
// to stop when the context ends (wazero's WithCloseOnContextDone): the
// figure behind decoding in the background after a cancel.
func BenchmarkDecodeHEIF(b *testing.B) {
	for _, file := range []string{"photo.heic", "photo.avif"} {
		for _, interruptible := range []bool{false, true} {
			name := file
			c := imageconv.Default()
			if interruptible {
				name += " interruptible"
				c = imageconv.NewInterruptible(imageconv.Options{})
			}
			b.Run(name, func(b *testing.B) {
				data := photo(b, file)
				c.Warm(context.Background())
				measure(b, func() {
					if _, err := c.DecodeHEIFWithBudget(context.Background(), data, 1<<30); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkCompileDecoders is the first-use cost of the WebAssembly
// decoders: compiling both to machine code, and loading them from a
// cache directory compiled into by an earlier converter.
func BenchmarkCompileDecoders(b *testing.B) {
	b.Run("compile", func(b *testing.B) {
		measure(b, func() {
			c := imageconv.New(imageconv.Options{})
			if err := c.Warm(context.Background()); err != nil {
				b.Fatal(err)
			}
			c.Close(context.Background())
		})
	})
	b.Run("from CacheDir", func(b *testing.B) {
		dir := b.TempDir()
		first := imageconv.New(imageconv.Options{CacheDir: dir})
		first.Warm(context.Background())
		first.Close(context.Background())
		measure(b, func() {
			c := imageconv.New(imageconv.Options{CacheDir: dir})
			if err := c.Warm(context.Background()); err != nil {
				b.Fatal(err)
			}
			c.Close(context.Background())
		})
	})
}

// BenchmarkScale compares x/image/draw's scalers with this package's for
// shrinking a 4000 × 3000 picture to 1000 × 750: the decoded HEIC
// photograph (smooth detail), and a zone plate (rings of rising
// frequency, the classic test for aliasing). diff-from-CatmullRom is the
// mean absolute difference per channel (0 to 255) from Catmull-Rom's
// result, taken as the reference of a properly filtered shrink.
func BenchmarkScale(b *testing.B) {
	pictures := []struct {
		name string
		m    func(b *testing.B) image.Image
	}{
		{"photo", func(b *testing.B) image.Image {
			m, err := imageconv.Default().DecodeHEIFWithBudget(context.Background(), photo(b, "photo.heic"), 1<<30)
			if err != nil {
				b.Fatal(err)
			}
			return m
		}},
		{"zone plate", func(*testing.B) image.Image { return zonePlate(4000, 3000) }},
	}
	for _, p := range pictures {
		b.Run(p.name, func(b *testing.B) {
			m := p.m(b)
			ref := image.NewRGBA(image.Rect(0, 0, 1000, 750))
			draw.CatmullRom.Scale(ref, ref.Rect, m, m.Bounds(), draw.Src, nil)
			for _, s := range []struct {
				name  string
				scale func(dst *image.RGBA)
			}{
				{"CatmullRom", func(dst *image.RGBA) { draw.CatmullRom.Scale(dst, dst.Rect, m, m.Bounds(), draw.Src, nil) }},
				{"ApproxBiLinear", func(dst *image.RGBA) { draw.ApproxBiLinear.Scale(dst, dst.Rect, m, m.Bounds(), draw.Src, nil) }},
				{"box halving then ApproxBiLinear (this package)", func(dst *image.RGBA) {
					draw.Draw(dst, dst.Rect, imageconv.Scale(m, dst.Rect.Dx(), dst.Rect.Dy()), image.Point{}, draw.Src)
				}},
			} {
				b.Run(s.name, func(b *testing.B) {
					dst := image.NewRGBA(image.Rect(0, 0, 1000, 750))
					measure(b, func() { s.scale(dst) })
					var sum int64
					for i := range dst.Pix {
						sum += int64(abs(int(dst.Pix[i]) - int(ref.Pix[i])))
					}
					b.ReportMetric(float64(sum)/float64(len(dst.Pix)), "diff-from-CatmullRom")
				})
			}
		})
	}
}

// zonePlate is a grey picture of concentric rings whose frequency rises
// from the centre to the edges, up to one ring a pixel.
func zonePlate(w, h int) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, w, h))
	k := math.Pi / float64(w)
	for y := range h {
		for x := range w {
			dx, dy := float64(x-w/2), float64(y-h/2)
			m.Pix[y*m.Stride+x] = uint8(127.5 + 127.5*math.Cos(k*(dx*dx+dy*dy)))
		}
	}
	return m
}

// BenchmarkHostile is the time to refuse hostile files.
func BenchmarkHostile(b *testing.B) {
	files := map[string][]byte{"PNG 50000x50000 header": pngHeader(50_000, 50_000)}
	for _, h := range svgHostile {
		files["SVG "+h.name] = []byte(h.svg)
	}
	for name, data := range files {
		b.Run(name, func(b *testing.B) {
			measure(b, func() {
				if _, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: data}, imageconv.Target{}); err == nil {
					b.Fatal("Convert() succeeded; want an error")
				}
			})
			b.ReportMetric(float64(len(data))/(1<<20), "in-MiB")
		})
	}
}

// BenchmarkSVG is an ordinary diagram: the test picture's SVG.
func BenchmarkSVG(b *testing.B) {
	measure(b, func() {
		if _, err := imageconv.Default().Convert(context.Background(), imageconv.Input{Data: []byte(svgPicture)}, imageconv.Target{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkEncodeJPEG is the encoder's share of a photograph's
// conversion: the decoded 4000 × 3000 HEIC at quality 85.
func BenchmarkEncodeJPEG(b *testing.B) {
	m, err := imageconv.Default().DecodeHEIFWithBudget(context.Background(), photo(b, "photo.heic"), 1<<30)
	if err != nil {
		b.Fatal(err)
	}
	measure(b, func() {
		var out bytes.Buffer
		if err := jpeg.Encode(&out, m, &jpeg.Options{Quality: 85}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkNativeDecode is the same files decoded by ImageMagick with the
// machine's native libheif (libde265, libaom/dav1d) to a PPM, in the same
// run, for the ratio the WebAssembly sandbox costs. Its cpu-ms/op is the
// child process's.
func BenchmarkNativeDecode(b *testing.B) {
	for _, file := range []string{"photo.heic", "photo.avif"} {
		b.Run(file, func(b *testing.B) {
			data := photo(b, file)
			path := writeFile(b, b.TempDir(), file, data)
			bin := tool(b, "convert", "imagemagick")
			var cpu time.Duration
			b.ResetTimer()
			for b.Loop() {
				cmd := exec.Command(bin, path, "ppm:/dev/null")
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("convert: %v\n%s", err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
