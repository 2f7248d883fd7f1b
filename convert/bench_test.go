package convert_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/keel-go/keel/convert"
)

// bigWorkbook writes a workbook of rows × 12 columns with excelize's
// stream writer: ids, names in three scripts, e-mail addresses, amounts,
// counts, dates (styled), booleans and codes, about 10 MiB for 100,000
// rows.
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
	header := []any{"id", "name", "email", "amount", "count", "status", "signed", "active", "code", "region", "score", "note"}
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

func benchConvert(b *testing.B, in convert.Input) {
	reg := convert.Default()
	b.SetBytes(int64(len(in.Data)))
	b.ReportAllocs()
	runtime.GC()
	p := startPeakHeap()
	b.ResetTimer()
	var res *convert.Result
	for b.Loop() {
		var err error
		if res, err = reg.Convert(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
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
