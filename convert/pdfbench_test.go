package convert_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// bigPDF writes a text PDF of about 10 MiB: 500 pages of 64 lines, each
// word placed by a TJ array with kerning as word processors write it, in
// a TrueType font with widths and an embedded font program of 6.6 MiB
// (random bytes: never read, but every 10 MiB PDF carries its fonts).
func bigPDF(tb testing.TB) []byte {
	tb.Helper()
	r := rand.New(rand.NewSource(3))
	words := strings.Fields("the of and to in is was for on that with as by at from report sales customer quarter growth market revenue plan team review budget region north south result harbour river column")
	f := &pdfFile{}
	f.add("<</Type /Catalog /Pages 2 0 R>>")
	f.add("")
	fontFile := make([]byte, 53<<17)
	r.Read(fontFile)
	ff := f.add(pdfStream{dict: fmt.Sprintf("/Length1 %d", len(fontFile)), data: fontFile})
	widths := make([]string, 95)
	for i := range widths {
		widths[i] = fmt.Sprint(400 + r.Intn(300))
	}
	desc := f.add(fmt.Sprintf("<</Type /FontDescriptor /FontName /ABCDEF+Serif /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R>>", ff))
	font := f.add(fmt.Sprintf("<</Type /Font /Subtype /TrueType /BaseFont /ABCDEF+Serif /FirstChar 32 /LastChar 126 /Widths [%s] /Encoding /WinAnsiEncoding /FontDescriptor %d 0 R>>", strings.Join(widths, " "), desc))
	var kids []string
	for p := 0; p < 500; p++ {
		var c strings.Builder
		c.WriteString("BT /F1 10 Tf 12 TL 56 780 Td\n")
		for l := 0; l < 64; l++ {
			c.WriteString("[")
			for w := 0; w < 8; w++ {
				fmt.Fprintf(&c, "(%s %d )%d", words[r.Intn(len(words))], r.Intn(10000), -r.Intn(40))
			}
			c.WriteString("] TJ T*\n")
		}
		c.WriteString("ET\n")
		cs := f.add(pdfStream{data: []byte(c.String())})
		pg := f.add(fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources <</Font <</F1 %d 0 R>>>>>>", cs, font))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	f.objs[1] = fmt.Sprintf("<</Type /Pages /Kids [%s] /Count %d>>", strings.Join(kids, " "), len(kids))
	return f.bytes()
}

// BenchmarkPDF10MiB converts a 10 MiB, 500-page text PDF. To compare
// with pdftotext on the same file, write it out first:
//
//	KEEL_WRITE_PDFS=/tmp/pdfs go test -run TestWritePDFs ./convert
//	hyperfine 'pdftotext /tmp/pdfs/big.pdf /dev/null'
func BenchmarkPDF10MiB(b *testing.B) {
	benchConvert(b, convert.Input{Name: "big.pdf", Data: bigPDF(b)})
}

// BenchmarkPDF10MiBEncrypted converts the PDF of BenchmarkPDF10MiB
// rewritten by qpdf, in the clear and encrypted with the empty user
// password: what decrypting costs. qpdf compresses the streams it
// rewrites, so the file in the clear is qpdf's too.
func BenchmarkPDF10MiBEncrypted(b *testing.B) {
	plain := bigPDF(b)
	for _, c := range []struct {
		name string
		opts []string
		enc  []string
	}{
		{"clear", nil, nil},
		{"RC4-128", weak, []string{"128"}},
		{"AES-128", nil, []string{"128", "--use-aes=y"}},
		{"AES-256", nil, []string{"256"}},
	} {
		var data []byte
		if c.enc == nil {
			data = qpdf(b, plain)
		} else {
			data = qpdfEncrypt(b, plain, c.opts, "", c.enc...)
		}
		b.Run(c.name, func(b *testing.B) {
			benchConvert(b, convert.Input{Name: "big.pdf", Data: data})
		})
	}
}

// TestWritePDFs writes the PDFs the tests make by hand (the benchmark's,
// form XObjects, CID fonts, scanned pages, the hostile ones) into the
// directory KEEL_WRITE_PDFS names, for scripts/pdfbakeoff to compare
// readers on.
func TestWritePDFs(t *testing.T) {
	dir := os.Getenv("KEEL_WRITE_PDFS")
	if dir == "" {
		t.Skip("set KEEL_WRITE_PDFS to a directory to write the hand-made PDFs there")
	}
	files := map[string][]byte{"big.pdf": bigPDF(t), "form.pdf": formPDF(t), "cid.pdf": cidFontPDF(t), "scanned.pdf": scannedPDF(t, 12)}
	for i, h := range hostilePDFs(t) {
		files[fmt.Sprintf("hostile-%02d-%s.pdf", i+1, strings.NewReplacer(" ", "-", ",", "").Replace(h.name))] = h.data
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
