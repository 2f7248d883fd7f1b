package convert_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/convert"
)

// hostilePDF is a PDF written to hurt a reader, with what the converter
// must do with it.
type hostilePDF struct {
	name    string
	data    []byte
	lim     convert.Limits
	want    string // text the result, or the error wanted, must hold
	wantErr any    // **convert.FormatError or **convert.LimitError
	maxHeap uint64
}

func hostilePDFs(t testing.TB) []hostilePDF {
	good := simplePDF(t, "", textAt(72, 700, 12, "GOODMARK survives"))

	// Objects that refer to each other: resources, a /Length, a page
	// tree whose node is its own kid.
	loops := &pdfFile{}
	loops.add("<</Type /Catalog /Pages 2 0 R>>")
	loops.add("<</Type /Pages /Kids [2 0 R 3 0 R 2 0 R] /Count 2>>")
	loops.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources 5 0 R>>")
	loops.add(pdfStream{dict: "/Length 7 0 R", raw: []byte("BT /F1 12 Tf 72 700 Td (LOOPMARK) Tj ET")})
	loops.add("6 0 R")
	loops.add("5 0 R")
	loops.add("7 0 R")

	// A stream declaring a gigabyte in a file of a few hundred bytes.
	gigaDeclared := &pdfFile{}
	gigaDeclared.add("<</Type /Catalog /Pages 2 0 R>>")
	gigaDeclared.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	gigaDeclared.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>")
	gigaDeclared.add(pdfStream{dict: "/Length 1073741824", raw: []byte("BT /F1 12 Tf 72 700 Td (GIGAMARK) Tj ET")})
	gigaDeclared.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>")

	// A content stream that inflates to 1 GiB of spaces after its text.
	bombStream := deflateBomb(t, "BT /F1 12 Tf 72 700 Td (BOMBMARK) Tj ET ", ' ', 1024)
	bomb := &pdfFile{}
	bomb.add("<</Type /Catalog /Pages 2 0 R>>")
	bomb.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	bomb.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R>>")
	// deflateBomb writes raw deflate; the zlib header is optional to
	// readers, and this one has none.
	bomb.add(pdfStream{dict: fmt.Sprintf("/Length %d /Filter /FlateDecode", len(bombStream)), raw: bombStream})

	// A file cut inside its content stream, the page written before it.
	cut := &pdfFile{}
	cut.add("<</Type /Catalog /Pages 2 0 R>>")
	cut.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	cut.add("<</Type /Page /Parent 2 0 R /Contents 5 0 R /Resources <</Font <</F1 4 0 R>>>>>>")
	cut.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica>>")
	cut.add(pdfStream{data: []byte(textAt(72, 700, 12, "FIRSTLINE is whole") + textAt(72, 680, 12, "SECONDLINE is cut off"))})
	cutData := cut.bytes()
	cutData = cutData[:bytes.Index(cutData, []byte("SECONDLINE"))+6]

	// The cross-reference offset points into nowhere, and the table's
	// entries are wrong: the objects must be found by scanning.
	brokenXref := bytes.Clone(good)
	i := bytes.LastIndex(brokenXref, []byte("startxref\n"))
	brokenXref = append(brokenXref[:i], []byte("startxref\n999999\n%%EOF\n")...)
	wrongEntries := bytes.Replace(good, []byte(" 00000 n "), []byte("0 00000 n"), -1)

	deep := &pdfFile{}
	deep.add("<</Type /Catalog /Pages 2 0 R /Junk " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + ">>")
	deep.add("<</Type /Pages /Kids [] /Count 0>>")

	deepForms := &pdfFile{}
	deepForms.add("<</Type /Catalog /Pages 2 0 R>>")
	deepForms.add("<</Type /Pages /Kids [3 0 R] /Count 1>>")
	deepForms.add("<</Type /Page /Parent 2 0 R /Contents 4 0 R /Resources <</XObject <</A 5 0 R>>>>>>")
	deepForms.add(pdfStream{data: []byte("/A Do")})
	// A and B draw each other: a cycle through two forms.
	deepForms.add(pdfStream{dict: "/Subtype /Form /Resources <</XObject <</B 6 0 R>>>>", data: []byte("/B Do")})
	deepForms.add(pdfStream{dict: "/Subtype /Form /Resources <</XObject <</A 5 0 R>>>>", data: []byte("/A Do")})

	manyPages := &pdfFile{}
	manyPages.add("<</Type /Catalog /Pages 2 0 R>>")
	var kids strings.Builder
	for i := 0; i < 6000; i++ {
		fmt.Fprintf(&kids, "%d 0 R ", i+3)
	}
	manyPages.add("<</Type /Pages /Kids [" + kids.String() + "] /Count 6000>>")
	for i := 0; i < 6000; i++ {
		manyPages.add("<</Type /Page /Parent 2 0 R>>")
	}

	// A standard security handler's dictionary (RC4, 128 bits) whose /O
	// and /U are junk: the empty password does not open it, and the
	// error says that a password is needed.
	encrypted := &pdfFile{trailerExtra: " /Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]"}
	encrypted.add("<</Type /Catalog /Pages 2 0 R>>")
	encrypted.add("<</Type /Pages /Kids [] /Count 0>>")
	encrypted.add("<</Filter /Standard /V 2 /R 3 /Length 128 /P -3904 /O <" + strings.Repeat("ab", 32) + "> /U <" + strings.Repeat("cd", 32) + ">>>")

	return append([]hostilePDF{
		{"reference loops", loops.bytes(), convert.Limits{}, "--- page 1 ---", nil, 4 << 20},
		{"a stream declaring 1 GiB", gigaDeclared.bytes(), convert.Limits{}, "GIGAMARK", nil, 4 << 20},
		// The default limit (256 MiB) stops it the same way in about a
		// second (40 s under the race detector): 64 MiB keeps the test short.
		{"a content stream inflating to 1 GiB", bomb.bytes(), convert.Limits{MaxUnpacked: 64 << 20}, "", new(*convert.LimitError), 4 << 20},
		{"startxref pointing nowhere", brokenXref, convert.Limits{}, "GOODMARK", nil, 4 << 20},
		{"wrong cross-reference entries", wrongEntries, convert.Limits{}, "GOODMARK", nil, 4 << 20},
		{"truncated in its content", cutData, convert.Limits{}, "FIRSTLINE is whole", nil, 4 << 20},
		{"truncated before its pages", good[:bytes.Index(good, []byte("2 0 obj"))], convert.Limits{}, "", new(*convert.FormatError), 4 << 20},
		{"100,000 nested arrays", deep.bytes(), convert.Limits{}, "", new(*convert.LimitError), 16 << 20},
		{"forms drawing each other", deepForms.bytes(), convert.Limits{}, "--- page 1 ---", nil, 4 << 20},
		{"6,000 pages", manyPages.bytes(), convert.Limits{}, "", new(*convert.LimitError), 8 << 20},
		{"encrypted with a password", encrypted.bytes(), convert.Limits{}, "needs a password", new(*convert.FormatError), 1 << 20},
		{"no header", []byte("hello %PDF-"), convert.Limits{}, "", new(*convert.FormatError), 1 << 20},
	}, workPDFs(t)...)
}

func TestPDFHostile(t *testing.T) {
	for _, tt := range hostilePDFs(t) {
		t.Run(tt.name, func(t *testing.T) {
			var res *convert.Result
			var err error
			start := time.Now()
			heap := allocated(func() {
				res, err = convert.Default().WithLimits(tt.lim).Convert(context.Background(), convert.Input{Name: "hostile.pdf", Data: tt.data})
			})
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("Convert error = %v; want a result holding %q", err, tt.want)
				}
				if !strings.Contains(res.Text, tt.want) {
					t.Errorf("Text = %q; want it to hold %q", res.Text, tt.want)
				}
			case **convert.FormatError:
				if !errors.As(err, want) || !strings.Contains(fmt.Sprint(err), tt.want) {
					t.Errorf("Convert error = %v (%T); want a *convert.FormatError saying %q", err, err, tt.want)
				}
			case **convert.LimitError:
				if !errors.As(err, want) || !errors.Is(err, convert.ErrLimit) {
					t.Errorf("Convert error = %v (%T); want a *convert.LimitError", err, err)
				}
			}
			if heap > tt.maxHeap {
				t.Errorf("Convert allocated %d bytes; want at most %d", heap, tt.maxHeap)
			}
			t.Logf("%v; %d bytes allocated in %v", err, heap, time.Since(start))
		})
	}
}
