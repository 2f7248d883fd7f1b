package convert_test

import (
	"testing"

	"github.com/keel-go/keel/convert"
)

// The legacy formats are fuzzed inside a sound Compound File, so that
// the mutations reach the readers of their records rather than stop at
// the container; FuzzCompoundFile mutates the container itself.

// cfbStreams returns the streams of a Compound File of the corpus, by
// name, as seeds.
func cfbStreams(t testing.TB, file string, names ...string) [][]byte {
	t.Helper()
	in := convert.Input{Name: file, Data: corpusFile(t, file)}
	var out [][]byte
	for _, n := range names {
		b, err := convert.StreamOfCompoundFile(&in, n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func FuzzXLS(f *testing.F) {
	f.Add(cfbStreams(f, "leads.xls", "Workbook")[0])
	f.Fuzz(func(t *testing.T, workbook []byte) {
		data, _ := writeCFB(t, storage("Root Entry", stream("Workbook", workbook)))
		checkConversion(t, convert.XLS(), &convert.Input{Data: data})
	})
}

func FuzzDOC(f *testing.F) {
	s := cfbStreams(f, "report.doc", "WordDocument", "1Table")
	f.Add(s[0], s[1])
	f.Fuzz(func(t *testing.T, word, table []byte) {
		data, _ := writeCFB(t, storage("Root Entry", stream("WordDocument", word), stream("1Table", table), stream("0Table", table)))
		checkConversion(t, convert.DOC(), &convert.Input{Data: data})
	})
}

func FuzzPPT(f *testing.F) {
	s := cfbStreams(f, "deck.ppt", "PowerPoint Document", "Current User")
	f.Add(s[0], s[1])
	f.Fuzz(func(t *testing.T, doc, user []byte) {
		data, _ := writeCFB(t, storage("Root Entry", stream("PowerPoint Document", doc), stream("Current User", user)))
		checkConversion(t, convert.PPT(), &convert.Input{Data: data})
	})
}

func FuzzMSG(f *testing.F) {
	f.Add([]byte("Quarterly figures"), []byte("<p>Hello <b>team</b></p>"), []byte{0x40, 0, 0x39, 0, 6, 0, 0, 0, 0, 0x80, 0x3e, 0xd5, 0xde, 0xb1, 0x9d, 0x01})
	f.Fuzz(func(t *testing.T, subject, html, props []byte) {
		data, _ := writeCFB(t, storage("Root Entry",
			stream("__substg1.0_0037001F", subject),
			stream("__substg1.0_10130102", html),
			stream("__properties_version1.0", append(make([]byte, 32), props...)),
			storage("__nameid_version1.0"),
			storage("__attach_version1.0_#00000000", stream("__substg1.0_3707001F", subject), stream("__properties_version1.0", props))))
		checkConversion(t, convert.MSG(), &convert.Input{Data: data})
	})
}

// FuzzCompoundFile mutates whole legacy files: the container's header,
// FAT and directory as much as the streams.
func FuzzCompoundFile(f *testing.F) {
	for _, name := range []string{"leads.xls", "report.doc", "memo.doc"} {
		f.Add(corpusFile(f, name))
	}
	f.Add(outlookMessage(f, false))
	reg := convert.Default().WithLimits(fuzzLimits)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range reg.Converters() {
			switch c.Format().Kind {
			case "xls", "doc", "ppt", "msg":
				checkConversion(t, c, &convert.Input{Data: data})
			}
		}
	})
}

func FuzzHTML(f *testing.F) {
	f.Add(corpusFile(f, "memo.html"))
	f.Add([]byte(`<table><tr><td><table><tr><td>x</td></tr></table><ol start="3"><li><a href="u"><b>y</b></a></ol><pre>  z  </pre><blockquote><h2>q</h2></blockquote>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, convert.HTML(), &convert.Input{Data: data, MediaType: "text/html"})
	})
}

func FuzzEPUB(f *testing.F) {
	fuzzMainPart(f, convert.EPUB(), corpusFile(f, "report.epub"), "OEBPS/content.opf")
}
