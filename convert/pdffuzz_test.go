package convert_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/keel-go/keel/convert"
)

// FuzzPDF feeds whole PDF files to the converter: hand-written ones with
// their content streams uncompressed, so that mutations reach the
// content parser, as well as the font, form and image structures.
//
//	go test -run='^$' -fuzz='^FuzzPDF$' -fuzztime=5m -parallel=1 ./convert
func FuzzPDF(f *testing.F) {
	plain := &pdfFile{}
	plain.add("<</Type /Catalog /Pages 2 0 R>>")
	plain.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	plain.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>")
	plain.add(pdfStream{data: []byte("BT /F1 12 Tf 72 700 Td [(Hello)-300(world)] TJ T* (next) ' ET q 1 0 0 1 5 5 cm BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI Q")})
	plain.add("<</Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 32 /Widths [278 278] /Encoding <</Differences [33 /uni4E2D /fi /eacute]>>>>")
	content := deflated([]byte(textAt(72, 700, 12, "clear")))
	identity := encryptedPDF(aes128+" /StmF /Identity", pdfStream{dict: "/Length " + strconv.Itoa(len(content)) + " /Filter /FlateDecode", raw: content}, " /Label (clear)")
	for _, seed := range [][]byte{plain.bytes(), cidFontPDF(f), formPDF(f), scannedPDF(f, 2), simplePDF(f, "", textAt(72, 700, 12, "deflated")), identity} {
		f.Add(seed)
	}
	// testdata/fuzz/FuzzPDF holds, besides what fuzzing found, files
	// qpdf encrypted (TestWritePDFFuzzSeeds).
	c := deadlineConverter{convert.PDF(), pdfFuzzDeadline}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkConversion(t, c, &convert.Input{Name: "f.pdf", Data: data})
	})
}

// pdfFuzzDeadline bounds one input's conversion. Under the fuzz limits
// (4 MiB unpacked, 200,000 tokens, 200 pages) every input takes
// milliseconds; one that runs into the deadline has found work that the
// limits do not bound, and fails.
const pdfFuzzDeadline = 10 * time.Second

// deadlineConverter runs a converter under a deadline and turns running
// past it into an error that checkConversion reports as untyped.
type deadlineConverter struct {
	convert.Converter
	d time.Duration
}

func (c deadlineConverter) Convert(ctx context.Context, in *convert.Input, lim convert.Limits) (*convert.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, c.d)
	defer cancel()
	start := time.Now()
	res, err := c.Converter.Convert(ctx, in, lim)
	if took := time.Since(start); took > c.d {
		return nil, fmt.Errorf("the conversion took %v, past its deadline of %v (%v)", took, c.d, err)
	}
	return res, err
}

// TestWritePDFFuzzSeeds writes the encrypted seeds of FuzzPDF into
// testdata/fuzz/FuzzPDF: a one-page PDF encrypted by qpdf with the empty
// user password in four ways, so that fuzzing starts from what real
// software writes. It runs when KEEL_WRITE_PDF_SEEDS is set.
func TestWritePDFFuzzSeeds(t *testing.T) {
	if os.Getenv("KEEL_WRITE_PDF_SEEDS") == "" {
		t.Skip("set KEEL_WRITE_PDF_SEEDS=1 to write FuzzPDF's encrypted seeds with qpdf")
	}
	src := simplePDF(t, "", textAt(72, 700, 12, "SEEDMARK encrypted"))
	objStreams := []string{"--object-streams=generate"}
	for _, s := range []struct {
		name string
		opts []string
		enc  []string
	}{
		{"qpdf-rc4-40", weak, []string{"40"}},
		{"qpdf-rc4-128-objstm", append(objStreams, weak...), []string{"128"}},
		{"qpdf-aes-128", nil, []string{"128", "--use-aes=y"}},
		{"qpdf-aes-256-objstm", objStreams, []string{"256"}},
	} {
		data := qpdfEncrypt(t, src, append([]string{"--static-id"}, s.opts...), "", s.enc...)
		if got := convertPDF(t, data).Text; got != "--- page 1 ---\nSEEDMARK encrypted\n" {
			t.Fatalf("%s reads as %q", s.name, got)
		}
		file := filepath.Join("testdata", "fuzz", "FuzzPDF", s.name)
		if err := os.WriteFile(file, []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
