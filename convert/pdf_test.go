package convert_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

func convertPDF(t testing.TB, data []byte) *convert.Result {
	t.Helper()
	res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "doc.pdf", Data: data})
	if err != nil {
		t.Fatalf("Convert(doc.pdf) error = %v", err)
	}
	if res.Kind != "pdf" || res.As != "plain text" {
		t.Fatalf("Convert(doc.pdf) = kind %q as %q; want pdf as plain text", res.Kind, res.As)
	}
	return res
}

// inOrder checks that each of marks occurs in text after the one
// before it.
func inOrder(t *testing.T, text string, marks ...string) {
	t.Helper()
	at := 0
	for _, m := range marks {
		i := strings.Index(text[at:], m)
		if i < 0 {
			if strings.Contains(text, m) {
				t.Errorf("text has %q out of order (want the order %q):\n%s", m, marks, text)
			} else {
				t.Errorf("text lacks %q:\n%s", m, text)
			}
			return
		}
		at += i + len(m)
	}
}

// onOneLine checks that a line of text holds all the cells, in order.
func onOneLine(t *testing.T, text string, cells ...string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		at, ok := 0, true
		for _, c := range cells {
			i := strings.Index(line[at:], c)
			if i < 0 {
				ok = false
				break
			}
			at += i + len(c)
		}
		if ok {
			return
		}
	}
	t.Errorf("no line holds %q in order:\n%s", cells, text)
}

func TestPDFCorpus(t *testing.T) {
	tests := []struct {
		name  string
		make  func(testing.TB) []byte
		pages int
		order []string   // markers in reading order
		rows  [][]string // table rows that must stay on one line
	}{
		{"LibreOffice", libreOfficePDF, 2,
			[]string{"--- page 1 ---", "HEADERMARK", "PAGEONEMARK", "CJKMARK", "TABLEMARK", "FOOTERMARK", "--- page 2 ---", "PAGETWOMARK", "LEFTSTART", "LEFTEND", "RIGHTSTART", "RIGHTEND", "AFTERCOLS"},
			[][]string{{"東京の売上は前年比で十二パーセント増加しました。", "北京", "서울"}, {"Region", "Revenue", "Growth"}, {"North", "1,204", "12%"}, {"South TABLEMARK", "980", "0%"}}},
		{"Chromium", chromiumPDF, 2,
			[]string{"--- page 1 ---", "HTMLTITLEMARK", "COLONESTART", "COLONEEND", "COLTWOSTART", "COLTWOEND", "HTMLTABLEMARK", "HTMLCJKMARK", "--- page 2 ---", "HTMLPAGETWOMARK"},
			[][]string{{"Ship", "Tonnage", "Port"}, {"Boreas HTMLTABLEMARK", "980", "Genoa"}, {"上海の港は世界で最も忙しい港の一つです。", "부산"}}},
		{"pdflatex", texPDF, 1,
			[]string{"TEXTITLEMARK", "TEXLEFTSTART", "snowfields", "TEXLEFTEND", "TEXTABLEMARK", "TEXRIGHTSTART", "TEXRIGHTEND"},
			[][]string{{"Danube TEXTABLEMARK", "2,850", "801,463"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.make(t)
			res := convertPDF(t, data)
			if want := fmt.Sprintf("%d page", tt.pages); !strings.HasPrefix(res.Description, want) {
				t.Errorf("Description = %q; want %s…", res.Description, want)
			}
			inOrder(t, res.Text, tt.order...)
			for _, row := range tt.rows {
				onOneLine(t, res.Text, row...)
			}
			peer := pdftotext(t, data)
			if share := wordShare(res.Text, peer); share < 0.98 {
				t.Errorf("the text holds %.1f%% of pdftotext's words; want ≥ 98%%\nkeel:\n%s\npdftotext:\n%s", share*100, res.Text, peer)
			} else {
				t.Logf("%.1f%% of pdftotext's words", share*100)
			}
		})
	}
}

// cidFontPDF writes a page in a Type0 font (Identity-H, two-byte codes)
// whose text is known only through its ToUnicode CMap, as producers
// write subset CJK fonts.
func cidFontPDF(t testing.TB) []byte {
	f := &pdfFile{}
	f.add("<</Type /Catalog /Pages 2 0 R>>")
	f.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	f.add("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources <</Font <</C1 5 0 R>>>>>>")
	f.add(pdfStream{data: []byte("BT /C1 12 Tf 72 700 Td <0001000200030004> Tj 0 -20 Td [<0005> -250 <0006>] TJ ET"), deflate: true})
	f.add("<</Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Subset /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R>>")
	f.add("<</Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Subset /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /DW 1000>>")
	f.add(pdfStream{deflate: true, data: []byte(`/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0001> <6771> <0002> <4EAC> endbfchar
2 beginbfrange <0003> <0004> <4E00> <0005> <0006> [<C11C> <C6B8>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`)})
	return f.bytes()
}

// formPDF writes a page that draws a form XObject, which draws another,
// and a form that draws itself.
func formPDF(t testing.TB) []byte {
	f := &pdfFile{}
	f.add("<</Type /Catalog /Pages 2 0 R>>")
	f.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	f.add("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources <</Font <</F1 5 0 R>> /XObject <</Fm1 6 0 R /Loop 8 0 R>>>>>>")
	f.add(pdfStream{data: []byte("BT /F1 12 Tf 72 720 Td (PAGETEXT before the form) Tj ET q 1 0 0 1 72 600 cm /Fm1 Do Q /Loop Do BT /F1 12 Tf 72 400 Td (PAGETEXT after the form) Tj ET")})
	f.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>")
	f.add(pdfStream{dict: "/Type /XObject /Subtype /Form /BBox [0 0 500 100] /Resources <</Font <</F1 5 0 R>> /XObject <</Fm2 7 0 R>>>>", deflate: true,
		data: []byte("BT /F1 12 Tf 0 50 Td (FORMMARK in the outer form) Tj ET /Fm2 Do")})
	f.add(pdfStream{dict: "/Type /XObject /Subtype /Form /BBox [0 0 500 100] /Matrix [1 0 0 1 0 -40] /Resources <</Font <</F1 5 0 R>>>>",
		data: []byte("BT /F1 12 Tf 0 50 Td (NESTEDFORMMARK in the inner form) Tj ET")})
	f.add(pdfStream{dict: "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources <</XObject <</Loop 8 0 R>>>>", data: []byte("/Loop Do")})
	return f.bytes()
}

// scannedPDF writes pages that draw an image each and no text.
func scannedPDF(t testing.TB, pages int) []byte {
	f := &pdfFile{}
	f.add("<</Type /Catalog /Pages 2 0 R>>")
	f.add("")
	img := f.add(pdfStream{dict: "/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", data: []byte{0, 255, 255, 0}})
	content := f.add(pdfStream{data: []byte("q 612 0 0 792 0 0 cm /Im1 Do Q")})
	var kids []string
	for i := 0; i < pages; i++ {
		p := f.add(fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources <</XObject <</Im1 %d 0 R>>>>>>", content, img))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	f.objs[1] = fmt.Sprintf("<</Type /Pages /Kids [%s] /Count %d>>", strings.Join(kids, " "), pages)
	return f.bytes()
}

func TestPDF(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		describe string
		text     string // the whole text, when given
		order    []string
		rows     [][]string
	}{
		{name: "CID font with ToUnicode", data: cidFontPDF(t), describe: "1 page",
			text: "--- page 1 ---\n東京一丁\n서 울\n"},
		{name: "form XObjects", data: formPDF(t), describe: "1 page",
			order: []string{"PAGETEXT before", "FORMMARK in the outer form", "NESTEDFORMMARK in the inner form", "PAGETEXT after"}},
		{name: "scanned pages", data: scannedPDF(t, 12), describe: "12 pages, no text layer: scanned images"},
		{name: "pages", data: simplePDF(t, "", textAt(72, 700, 12, "first"), "", textAt(72, 700, 12, "third")), describe: "3 pages, 1 without text",
			text: "--- page 1 ---\nfirst\n\n--- page 2 ---\n\n--- page 3 ---\nthird\n"},
		{name: "a row written from the right", data: simplePDF(t, "", textAt(400, 700, 10, "12%")+textAt(250, 700, 10, "1,204")+textAt(72, 700, 10, "North")+textAt(72, 686, 10, "next line")),
			text: "--- page 1 ---\nNorth\t1,204\t12%\nnext line\n"},
		{name: "bold faked by drawing twice", data: simplePDF(t, "", textAt(72, 700, 12, "Bold title")+textAt(72.3, 700, 12, "Bold title")+textAt(72, 680, 12, "body")),
			text: "--- page 1 ---\nBold title\nbody\n"},
		{name: "TJ spacing", data: simplePDF(t, "", "BT /F1 10 Tf 72 700 Td [(Spaced)-300(by)-250(ker)-40(ning)] TJ ET"),
			text: "--- page 1 ---\nSpaced by kerning\n"},
		{name: "rotated page text", data: simplePDF(t, "", "BT /F1 10 Tf 0 1 -1 0 300 100 Tm (going up) Tj ET"),
			text: "--- page 1 ---\ngoing up\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertPDF(t, tt.data)
			if tt.describe != "" && res.Description != tt.describe {
				t.Errorf("Description = %q; want %q", res.Description, tt.describe)
			}
			if tt.text != "" && res.Text != tt.text {
				t.Errorf("Text = %q; want %q", res.Text, tt.text)
			}
			inOrder(t, res.Text, tt.order...)
			for _, row := range tt.rows {
				onOneLine(t, res.Text, row...)
			}
		})
	}
}

func TestPDFCap(t *testing.T) {
	var pages []string
	for i := 0; i < 30; i++ {
		var b strings.Builder
		for l := 0; l < 40; l++ {
			b.WriteString(textAt(72, float64(750-l*14), 10, fmt.Sprintf("page %d line %d of some text", i+1, l+1)))
		}
		pages = append(pages, b.String())
	}
	data := simplePDF(t, "", pages...)
	whole := convertPDF(t, data)
	res, err := convert.Default().WithLimits(convert.Limits{MaxChars: 2000}).Convert(context.Background(), convert.Input{Name: "long.pdf", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(whole.Text, res.Text) || len([]rune(res.Text)) > 2000 {
		t.Fatalf("capped text is not a prefix of the whole within 2000 characters: %d characters", len([]rune(res.Text)))
	}
	if got, want := res.Omitted.Chars, len([]rune(whole.Text))-len([]rune(res.Text)); got != want {
		t.Errorf("Omitted.Chars = %d; want %d (the rest of the whole text)", got, want)
	}
	if res.Omitted.Unit != "lines" || res.Omitted.Units == 0 {
		t.Errorf("Omitted = %+v; want lines left out", res.Omitted)
	}
}

func TestPDFNotAPDF(t *testing.T) {
	_, err := convert.Default().Convert(context.Background(), convert.Input{Name: "report.pdf", MediaType: "application/pdf", Data: pngHeader})
	var fe *convert.FormatError
	if !errors.As(err, &fe) || fe.Kind != "pdf" {
		t.Errorf("Convert(PNG named report.pdf) error = %v; want a *convert.FormatError of kind pdf", err)
	}
}
