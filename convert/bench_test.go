package convert_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/keel-go/keel/convert"
)

// bigWorkbook writes a workbook of rows × 13 columns with excelize's
// stream writer: ids, names in three scripts, e-mail addresses, amounts,
// counts, dates (styled), booleans, codes and comments, about 10 MiB for
// 100,000 rows.
func bigWorkbook(tb testing.TB, rows int) []byte {
	tb.Helper()
	f := excelize.NewFile()
	defer f.Close()
	date, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		tb.Fatal(err)
	}
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	words := []string{"alpha", "beta", "gamma", "delta", "東京", "Αθήνα", "lead", "customer", "open", "closed"}
	header := []any{"id", "name", "email", "amount", "count", "status", "signed", "active", "code", "region", "score", "note", "comment"}
	if err := sw.SetRow("A1", header); err != nil {
		tb.Fatal(err)
	}
	for i := 2; i <= rows+1; i++ {
		cell, _ := excelize.CoordinatesToCellName(1, i)
		row := []any{
			i, fmt.Sprintf("Name %d %s", r.Intn(1e6), words[r.Intn(10)]), fmt.Sprintf("user%d@example.com", r.Intn(1e7)),
			r.Float64() * 1e5, r.Intn(1000), words[r.Intn(10)],
			excelize.Cell{StyleID: date, Value: 43831 + r.Intn(2000)}, r.Intn(2) == 0, fmt.Sprintf("%08x", r.Uint32()),
			words[r.Intn(10)], r.Intn(100), fmt.Sprintf("n%d", r.Intn(1e5)),
			fmt.Sprintf("%s %s %d %s", words[r.Intn(10)], words[r.Intn(10)], r.Intn(1e6), words[r.Intn(10)]),
		}
		if err := sw.SetRow(cell, row); err != nil {
			tb.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// peakHeap samples the live heap every 200 µs while it runs, as
// runtime/metrics reports it (objects allocated and not yet swept
// free), and returns the highest sample. ReadMemStats would stop the
// world at each sample; metrics do not.
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

// cpuTime is the process's user and system CPU time: on a machine shared
// with other work, wall time per op swings with the load while CPU time
// per op stays near what the work costs (it counts the garbage
// collector's workers too, as it should).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func benchConvert(b *testing.B, in convert.Input) {
	reg := convert.Default()
	b.SetBytes(int64(len(in.Data)))
	b.ReportAllocs()
	runtime.GC()
	p := startPeakHeap()
	b.ResetTimer()
	cpu := cpuTime()
	var res *convert.Result
	for b.Loop() {
		var err error
		if res, err = reg.Convert(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCPU(b, cpu)
	b.ReportMetric(float64(p.Stop())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(len(in.Data))/(1<<20), "file-MiB")
	if res.Omitted.Units == 0 {
		b.Fatalf("the benchmark's file fits the cap; it must not")
	}
}

func BenchmarkXLSX10MiB(b *testing.B) {
	data := bigWorkbook(b, 100_000)
	benchConvert(b, convert.Input{Name: "big.xlsx", Data: data})
}

// bigDocx writes a Word document of about 10 MiB: with images, a
// thousand paragraphs of text around 9 MiB of pictures (the usual reason
// a .docx is that large); without, text only, about 190,000 paragraphs
// and tables of random words, so that nearly all of the 10 MiB is
// document.xml to read (some 58 MB inflated).
func bigDocx(tb testing.TB, images bool) []byte {
	tb.Helper()
	r := rand.New(rand.NewSource(2))
	words := strings.Fields("the of and to in is was for on that with as by at from report sales Ελλάδα 日本 customer quarter growth market revenue plan team review budget region north south result")
	para := func(b *strings.Builder, n int) {
		b.WriteString(`<w:p w:rsidR="00A51C2E"><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr><w:lang w:val="en-GB"/></w:rPr><w:t xml:space="preserve">`)
		for i := 0; i < n; i++ {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteByte(' ')
			fmt.Fprintf(b, "%d ", r.Intn(100000))
		}
		b.WriteString(`</w:t></w:r></w:p>`)
	}
	var body strings.Builder
	paragraphs := 190_000
	if images {
		paragraphs = 1_000
	}
	for i := 0; i < paragraphs; i++ {
		if i%50 == 0 {
			body.WriteString(`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Section ` + fmt.Sprint(i/50) + `</w:t></w:r></w:p>`)
		}
		if i%200 == 199 {
			body.WriteString(`<w:tbl>`)
			for row := 0; row < 4; row++ {
				body.WriteString(`<w:tr>`)
				for col := 0; col < 3; col++ {
					body.WriteString(`<w:tc><w:tcPr><w:tcW w:w="3005" w:type="dxa"/></w:tcPr>`)
					para(&body, 2)
					body.WriteString(`</w:tc>`)
				}
				body.WriteString(`</w:tr>`)
			}
			body.WriteString(`</w:tbl>`)
		}
		para(&body, 12)
	}
	parts := []part{
		{"_rels/.rels", packageRels("word/document.xml")},
		{"word/document.xml", xmlDecl + `<w:document ` + wordNamespaces + `><w:body>` + body.String() + `</w:body></w:document>`},
		{"word/_rels/document.xml.rels", rels(relItem("rId2", "styles", "styles.xml"))},
		{"word/styles.xml", xmlDecl + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`},
	}
	if images {
		img := make([]byte, 9<<20)
		r.Read(img)
		parts = append(parts, part{"word/media/image1.png", string(append(bytes.Clone(pngHeader), img...))})
	}
	return makeZip(tb, parts...)
}

func BenchmarkDOCX10MiB(b *testing.B) {
	for _, tc := range []struct {
		name   string
		images bool
	}{{"text", false}, {"images", true}} {
		b.Run(tc.name, func(b *testing.B) {
			benchConvert(b, convert.Input{Name: "big.docx", Data: bigDocx(b, tc.images)})
		})
	}
}

// BenchmarkInflateBaseline inflates every member of the same files to
// io.Discard: what any converter pays before reading a byte of XML.
func BenchmarkInflateBaseline(b *testing.B) {
	for _, tc := range []struct {
		name string
		data func(testing.TB) []byte
	}{
		{"xlsx", func(tb testing.TB) []byte { return bigWorkbook(tb, 100_000) }},
		{"docx-text", func(tb testing.TB) []byte { return bigDocx(tb, false) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			data := tc.data(b)
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					b.Fatal(err)
				}
				for _, f := range zr.File {
					rc, _ := f.Open()
					io.Copy(io.Discard, rc)
					rc.Close()
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkExcelizeRows reads the same workbook with excelize's streaming
// row reader, raw values (no number formats applied): the reader the
// xlsx converter does not use, measured so the choice can be checked.
func BenchmarkExcelizeRows(b *testing.B) {
	data := bigWorkbook(b, 100_000)
	b.SetBytes(int64(len(data)))
	runtime.GC()
	p := startPeakHeap()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		f, err := excelize.OpenReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		rows, err := f.Rows("Sheet1")
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			if _, err := rows.Columns(excelize.Options{RawCellValue: true}); err != nil {
				b.Fatal(err)
			}
		}
		rows.Close()
		f.Close()
	}
	b.StopTimer()
	reportCPU(b, cpu)
	b.ReportMetric(float64(p.Stop())/(1<<20), "peak-heap-MiB")
}
