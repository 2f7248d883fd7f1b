package convert_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
)

// pdfFile writes a PDF from numbered objects (object n is objs[n-1]),
// with a correct cross-reference table; the catalog is object 1. An
// object given as a pdfStream becomes a stream of its data, deflated
// when asked.
type pdfFile struct {
	objs []any // string (the object's text) or pdfStream
	// trailerExtra is added to the trailer dictionary.
	trailerExtra string
}

type pdfStream struct {
	dict    string // entries besides /Length and /Filter
	data    []byte
	deflate bool
	// raw, when set, is written as the stream's bytes as they are, with
	// dict as the whole dictionary (for streams that lie).
	raw []byte
}

func (f *pdfFile) add(o any) int {
	f.objs = append(f.objs, o)
	return len(f.objs)
}

func deflated(b []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func (f *pdfFile) bytes() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(f.objs))
	for i, o := range f.objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		switch v := o.(type) {
		case string:
			b.WriteString(v)
		case pdfStream:
			switch {
			case v.raw != nil:
				fmt.Fprintf(&b, "<<%s>>\nstream\n", v.dict)
				b.Write(v.raw)
			case v.deflate:
				data := deflated(v.data)
				fmt.Fprintf(&b, "<<%s /Length %d /Filter /FlateDecode>>\nstream\n", v.dict, len(data))
				b.Write(data)
			default:
				fmt.Fprintf(&b, "<<%s /Length %d>>\nstream\n", v.dict, len(v.data))
				b.Write(v.data)
			}
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(f.objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d /Root 1 0 R%s>>\nstartxref\n%d\n%%%%EOF\n", len(f.objs)+1, f.trailerExtra, xref)
	return b.Bytes()
}

// simplePDF writes a document whose pages show the given content
// streams, with Helvetica as /F1 (WinAnsi, no widths: the standard font
// every reader knows) and the given extra resources.
func simplePDF(t testing.TB, resources string, pages ...string) []byte {
	t.Helper()
	f := &pdfFile{}
	f.add("<</Type /Catalog /Pages 2 0 R>>")
	f.add("") // the page tree, written below
	font := f.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>")
	var kids []string
	for _, content := range pages {
		c := f.add(pdfStream{data: []byte(content), deflate: true})
		p := f.add(fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources <</Font <</F1 %d 0 R>> %s>>>>", c, font, resources))
		kids = append(kids, fmt.Sprintf("%d 0 R", p))
	}
	f.objs[1] = fmt.Sprintf("<</Type /Pages /Kids [%s] /Count %d>>", strings.Join(kids, " "), len(kids))
	return f.bytes()
}

// textAt is a content stream showing s with /F1 at (x, y) in size pt.
func textAt(x, y, size float64, s string) string {
	return fmt.Sprintf("BT /F1 %g Tf %g %g Td (%s) Tj ET\n", size, x, y, s)
}
