package convert_test

import (
	"testing"

	"github.com/keel-go/keel/convert"
)

// FuzzPDF feeds whole PDF files to the converter: hand-written ones with
// their content streams uncompressed, so that mutations reach the
// content parser, as well as the font, form and image structures.
//
//	go test -run='^$' -fuzz=FuzzPDF -fuzztime=30s ./convert
func FuzzPDF(f *testing.F) {
	plain := &pdfFile{}
	plain.add("<</Type /Catalog /Pages 2 0 R>>")
	plain.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	plain.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>")
	plain.add(pdfStream{data: []byte("BT /F1 12 Tf 72 700 Td [(Hello)-300(world)] TJ T* (next) ' ET q 1 0 0 1 5 5 cm BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI Q")})
	plain.add("<</Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 32 /Widths [278 278] /Encoding <</Differences [33 /uni4E2D /fi /eacute]>>>>")
	for _, seed := range [][]byte{plain.bytes(), cidFontPDF(f), formPDF(f), scannedPDF(f, 2), simplePDF(f, "", textAt(72, 700, 12, "deflated"))} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, convert.PDF(), &convert.Input{Name: "f.pdf", Data: data})
	})
}
