package convert

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// BenchmarkXMLScan scans a sheet's XML held in memory, so that the
// scanner's own cost shows without inflating: 200,000 rows of six cells,
// about 40 MB, with the nesting and names excelize writes.
func BenchmarkXMLScan(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetData>`)
	for r := 1; r <= 200_000; r++ {
		fmt.Fprintf(&sb, `<row r="%d">`, r)
		for c := 0; c < 6; c++ {
			fmt.Fprintf(&sb, `<c r="%c%d" s="1" t="s"><v>%d</v></c>`, 'A'+c, r, r*7+c)
		}
		sb.WriteString(`</row>`)
	}
	sb.WriteString(`</sheetData></worksheet>`)
	data := []byte(sb.String())
	lim := Limits{}.withDefaults()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for b.Loop() {
		sc := newXMLScanner(context.Background(), bytes.NewReader(data), lim, nil)
		for {
			k, err := sc.next()
			if err != nil {
				b.Fatal(err)
			}
			if k == tokEOF {
				break
			}
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
