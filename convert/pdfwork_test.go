package convert_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// workPDFs are hostile PDFs small on disk that once panicked or cost
// unbounded work or memory: each now ends within the limits, in a
// result or a typed error, within the heap given.
func workPDFs(t testing.TB) []hostilePDF {
	// A /W range whose CIDs are past 2^53, where a float no longer
	// counts up by one.
	wide := &pdfFile{}
	wide.add("<</Type /Catalog /Pages 2 0 R>>")
	wide.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	wide.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</Font <</C1 5 0 R>>>>>>")
	wide.add(pdfStream{data: []byte("BT /C1 12 Tf 72 700 Td <00410042> Tj ET")})
	wide.add("<</Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R>>")
	wide.add("<</Type /Font /Subtype /CIDFontType2 /BaseFont /X /W [100000000000000000000.0 100000000000000000000.0 500]>>")
	wide.add(pdfStream{data: []byte("1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0041> <0042> <0041> endbfrange")})

	// One line of 2 MB of glyphs: a line's text is held until it ends.
	glyphs := "(" + strings.Repeat("W", 8000) + ") Tj\n"
	longLine := simplePDF(t, "", "BT /F1 1 Tf 72 700 Td "+strings.Repeat(glyphs, 250)+"ET")

	// A TJ array of 32 MB of strings: operands wait for their operator.
	var tj strings.Builder
	tj.WriteString("BT /F1 10 Tf 72 700 Td [")
	for i := 0; i < 500; i++ {
		tj.WriteString("(" + strings.Repeat("B", 64000) + ") ")
	}
	tj.WriteString("] TJ ET " + textAt(72, 680, 10, "AFTERTJ"))
	bigTJ := simplePDF(t, "", tj.String())

	// Forms each drawing the next twice, 40 levels: 2^40 runs.
	twice := &pdfFile{}
	twice.add("<</Type /Catalog /Pages 2 0 R>>")
	twice.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	twice.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</XObject <</A 5 0 R>>>>>>")
	twice.add(pdfStream{data: []byte("/A Do")})
	for i := 0; i < 40; i++ {
		twice.add(pdfStream{dict: fmt.Sprintf("/Subtype /Form /Resources <</XObject <</A %d 0 R>>>>", i+6), data: []byte("/A Do /A Do"), deflate: true})
	}
	twice.add(pdfStream{dict: "/Subtype /Form", data: nil})

	// No table, no catalog: every object is read in search of one, and
	// each is left open, a string or a dictionary reaching to the end of
	// the file.
	var openStrings, openDicts strings.Builder
	openStrings.WriteString("%PDF-1.7\n")
	openDicts.WriteString("%PDF-1.7\n")
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&openStrings, "%d 0 obj (\n", i)
		fmt.Fprintf(&openDicts, "%d 0 obj <</A\n", i)
	}

	// A ToUnicode range mapping its codes to an empty array.
	emptyRange := &pdfFile{}
	emptyRange.add("<</Type /Catalog /Pages 2 0 R>>")
	emptyRange.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	emptyRange.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>")
	emptyRange.add(pdfStream{data: []byte("BT /F1 12 Tf 72 700 Td (AB) Tj ET " + textAt(72, 680, 12, "NEXTLINE"))})
	emptyRange.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R>>")
	emptyRange.add(pdfStream{data: []byte("1 begincodespacerange <00> <ff> endcodespacerange 1 beginbfrange <41> <42> [] endbfrange")})

	// Glyph names that are empty, or have an empty part.
	emptyNames := simplePDF(t, "", "BT /F2 12 Tf 72 700 Td (ABC) Tj ET "+textAt(72, 680, 12, "NEXTLINE"))
	emptyNames = bytes.Replace(emptyNames, []byte("/Font <</F1 3 0 R>>"), []byte("/Font <</F1 3 0 R /F2 <</Type /Font /Subtype /Type1 /BaseFont /X /Encoding <</Differences [65 / /a_ /_b]>>>>>>"), 1)

	return []hostilePDF{
		{"empty glyph names", emptyNames, convert.Limits{}, "NEXTLINE", nil, 1 << 20},
		{"a ToUnicode range of an empty array", emptyRange.bytes(), convert.Limits{}, "NEXTLINE", nil, 1 << 20},
		{"a width range past 2^53", wide.bytes(), convert.Limits{}, "AB", nil, 4 << 20},
		{"one line of 2 MB of glyphs", longLine, convert.Limits{}, "--- page 1 ---", nil, 2 << 20},
		{"a TJ array of 32 MB of strings", bigTJ, convert.Limits{}, "AFTERTJ", nil, 16 << 20},
		{"forms drawing the next twice, 40 levels", twice.bytes(), convert.Limits{MaxTokens: 5_000_000}, "", new(*convert.LimitError), 32 << 20},
		{"20,000 strings left open", []byte(openStrings.String()), convert.Limits{MaxTokens: 5_000_000}, "", new(*convert.LimitError), 64 << 20},
		{"20,000 dictionaries left open", []byte(openDicts.String()), convert.Limits{}, "no document catalog", new(*convert.FormatError), 32 << 20},
	}
}
