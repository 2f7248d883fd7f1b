package convert_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keel-go/keel/convert"
)

// The fuzz targets feed each converter mutated parts: for the package
// formats the fuzzer mutates the main XML part (and for xlsx the shared
// strings), which is wrapped in a stored zip each time, since mutating
// deflated bytes almost never reaches the parser. Archives, e-mail, RTF
// and text are fuzzed as whole files. Every run must end in a result
// within the cap or in a typed error; a panic fails the run.
//
//	go test -run='^$' -fuzz=FuzzXLSX -fuzztime=10s ./convert

// fuzzLimits keep each run small and fast, and make reading stop soon
// past the cap, to be compared with reading to the end.
var fuzzLimits = convert.Limits{MaxChars: 2000, MaxUnpacked: 4 << 20, MaxEntries: 200, MaxSheets: 50, MaxTokens: 200_000, MaxMeasured: 16 << 10}

func storedZip(parts ...part) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Store})
		w.Write([]byte(p.body))
	}
	zw.Close()
	return buf.Bytes()
}

// zipPart returns a member of a zip made by the tests, as a seed.
func zipPart(t testing.TB, data []byte, name string) string {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == name {
			rc, _ := f.Open()
			var b bytes.Buffer
			b.ReadFrom(rc)
			return b.String()
		}
	}
	t.Fatalf("no part %s", name)
	return ""
}

func checkConversion(t *testing.T, c convert.Converter, in *convert.Input) {
	lim := convert.New().WithLimits(fuzzLimits).Limits()
	res, err := c.Convert(context.Background(), in, lim)
	if err != nil {
		var fe *convert.FormatError
		if !errors.As(err, &fe) && !errors.Is(err, convert.ErrLimit) && !errors.Is(err, convert.ErrUnsupported) {
			t.Fatalf("Convert error %v (%T) is not typed", err, err)
		}
		return
	}
	if n := utf8.RuneCountInString(res.Text); n > lim.MaxChars {
		t.Fatalf("Convert text has %d characters; the cap is %d", n, lim.MaxChars)
	}
	if !utf8.ValidString(res.Text) {
		t.Fatalf("Convert text is not valid UTF-8: %q", res.Text)
	}
	if res.Omitted.AtLeast && !res.Omitted.Any() {
		t.Fatalf("Convert Omitted = %+v: lower bounds of nothing", res.Omitted)
	}
	// Reading to the end shows the same: stopping past the cap changes
	// only what is counted, and a sheet's heading (its size), whose
	// length leaves room for fewer rows.
	lim.MaxMeasured = 1 << 30
	whole, err := c.Convert(context.Background(), in, lim)
	switch {
	case err != nil:
		// Reading to the end met what stopping did not: more tokens,
		// malformed XML further on.
	case !res.Omitted.AtLeast && res.Text != whole.Text:
		t.Fatalf("Convert text %q; read to the end, %q", res.Text, whole.Text)
	case res.Omitted.AtLeast && !strings.HasPrefix(shown(whole.Text, true), shown(res.Text, true)):
		t.Fatalf("Convert text %q, stopped past the cap; read to the end, %q", res.Text, whole.Text)
	case res.Omitted.Chars > whole.Omitted.Chars || whole.Omitted.AtLeast:
		t.Fatalf("Convert Omitted = %+v; read to the end, %+v", res.Omitted, whole.Omitted)
	}
}

func FuzzXLSX(f *testing.F) {
	wb := leadsWorkbook(f)
	f.Add([]byte(zipPart(f, wb, "xl/worksheets/sheet1.xml")), []byte(zipPart(f, wb, "xl/sharedStrings.xml")))
	f.Add([]byte(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="2"><c r="C2" t="inlineStr"><is><t>x</t></is></c></row></sheetData><mergeCells><mergeCell ref="A1:B2"/></mergeCells></worksheet>`), []byte(`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><r><t>a</t></r><rPh><t>b</t></rPh></si></sst>`))
	styles := zipPart(f, wb, "xl/styles.xml")
	f.Fuzz(func(t *testing.T, sheet, sst []byte) {
		parts := workbookParts(string(sheet))
		parts = append(parts, part{"xl/sharedStrings.xml", string(sst)}, part{"xl/styles.xml", styles})
		parts[3] = part{"xl/_rels/workbook.xml.rels", rels(relItem("rId1", "worksheet", "worksheets/sheet1.xml"), relItem("rId2", "sharedStrings", "sharedStrings.xml"), relItem("rId3", "styles", "styles.xml"))}
		checkConversion(t, convert.XLSX(), &convert.Input{Data: storedZip(parts...)})
	})
}

// fuzzMainPart fuzzes one part of a package made by a test, the others
// kept as they are.
func fuzzMainPart(f *testing.F, c convert.Converter, pkg []byte, name string, seeds ...string) {
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		f.Fatal(err)
	}
	var others []part
	for _, zf := range zr.File {
		if zf.Name != name {
			others = append(others, part{zf.Name, zipPart(f, pkg, zf.Name)})
		}
	}
	f.Add([]byte(zipPart(f, pkg, name)))
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, main []byte) {
		parts := append([]part{{name, string(main)}}, others...)
		checkConversion(t, c, &convert.Input{Data: storedZip(parts...)})
	})
}

func FuzzDOCX(f *testing.F) {
	fuzzMainPart(f, convert.DOCX(), reportDocx(f), "word/document.xml",
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="3"/></w:tcPr><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>`)
}

func FuzzPPTX(f *testing.F) {
	fuzzMainPart(f, convert.PPTX(), deckPptx(f), "ppt/slides/slide3.xml")
}

func FuzzODT(f *testing.F) {
	fuzzMainPart(f, convert.ODT(), reportOdt(f), "content.xml")
}

func FuzzODS(f *testing.F) {
	fuzzMainPart(f, convert.ODS(), leadsOds(f), "content.xml")
}

func FuzzODP(f *testing.F) {
	fuzzMainPart(f, convert.ODP(), deckOdp(f), "content.xml")
}

func FuzzZip(f *testing.F) {
	f.Add(makeZip(f, projectFiles(f)...))
	f.Add(storedZip(projectFiles(f)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, convert.Zip(), &convert.Input{Data: data})
	})
}

func FuzzTar(f *testing.F) {
	f.Add(makeTar(f, false, projectFiles(f)))
	f.Add(makeTar(f, true, projectFiles(f)))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, convert.Tar(), &convert.Input{Data: data})
	})
}

func FuzzEML(f *testing.F) {
	f.Add([]byte(crlf(outlookMail)))
	f.Add([]byte(thunderbirdMail(f)[:4000]))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, convert.EML(), &convert.Input{Data: data})
	})
}

func FuzzRTF(f *testing.F) {
	f.Add([]byte(wordpadRTF))
	f.Add([]byte(wordRTF))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, convert.RTF(), &convert.Input{Data: data})
	})
}

func FuzzText(f *testing.F) {
	f.Add([]byte("{\"a\": 1}\r\n"), "application/json")
	f.Add([]byte("caf\xe9"), "text/csv; charset=iso-8859-1")
	f.Add([]byte{0xFF, 0xFE, 'a', 0}, "")
	f.Fuzz(func(t *testing.T, data []byte, mediaType string) {
		checkConversion(t, convert.Text(), &convert.Input{Data: data, MediaType: mediaType})
	})
}

// FuzzRegistry feeds whole files of any kind to the registry, which
// chooses by content; seeds are the test files of every converter.
func FuzzRegistry(f *testing.F) {
	for _, seed := range [][]byte{leadsWorkbook(f), reportDocx(f), deckPptx(f), leadsOds(f), reportOdt(f), deckOdp(f), []byte(wordRTF), []byte(crlf(outlookMail)), pngHeader, outlookMessage(f, true)} {
		f.Add(seed)
	}
	for _, name := range []string{"leads.xls", "report.doc", "deck.ppt", "report.epub", "memo.html", "memo-web.odt"} {
		f.Add(corpusFile(f, name))
	}
	reg := convert.Default().WithLimits(fuzzLimits)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := reg.Convert(context.Background(), convert.Input{Data: data})
		var fe *convert.FormatError
		if err != nil && !errors.As(err, &fe) && !errors.Is(err, convert.ErrLimit) && !errors.Is(err, convert.ErrUnsupported) {
			t.Fatalf("Convert error %v (%T) is not typed", err, err)
		}
		if fe != nil && strings.Contains(fe.Reason, "panic") {
			t.Fatalf("a converter panicked: %v", err)
		}
	})
}
