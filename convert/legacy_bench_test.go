package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// BenchmarkCorpus converts each file of the corpus LibreOffice wrote
// (testdata/corpus/make.sh): the legacy Office formats beside their
// modern and OpenDocument versions of the same content, and the e-book
// and web page. These are the files test/convert-peers sets beside
// other converters; the large-file figures are BenchmarkXLSX10MiB,
// BenchmarkDOCX10MiB and BenchmarkBombs.
//
//	go test -run '^$' -bench Corpus -benchtime 200x ./convert/
func BenchmarkCorpus(b *testing.B) {
	for _, name := range []string{"report.doc", "report.docx", "report.odt", "report.rtf", "memo.doc", "leads.xls", "leads.xlsx", "leads.ods", "deck.ppt", "deck.pptx", "deck.odp", "report.epub", "memo.html"} {
		b.Run(strings.ReplaceAll(name, ".", "_"), func(b *testing.B) {
			reg := convert.Default()
			in := convert.Input{Name: name, Data: corpusFile(b, name)}
			b.SetBytes(int64(len(in.Data)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				res, err := reg.Convert(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if res.Text == "" {
					b.Fatal("no text")
				}
			}
			reportCPU(b, cpu)
		})
	}
}
