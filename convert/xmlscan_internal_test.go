package convert

// This test is inside the package because the scanner is not exported:
// it compares the scanner with encoding/xml token by token.

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
)

// scanTokens lists the tokens of the scanner in a form comparable with
// encoding/xml's: adjacent text merged, xmlns attributes left out.
func scanTokens(data []byte) ([]string, error) {
	lim := Limits{}.withDefaults()
	sc := newXMLScanner(context.Background(), bytes.NewReader(data), lim, nil)
	var out []string
	text := ""
	flush := func() {
		if text != "" {
			out = append(out, "text "+text)
			text = ""
		}
	}
	for {
		k, err := sc.next()
		if err != nil {
			return out, err
		}
		switch k {
		case tokEOF:
			flush()
			return out, nil
		case tokText:
			text += string(sc.text)
		case tokStart:
			flush()
			s := fmt.Sprintf("start %d:%s", sc.ns, sc.local)
			for _, a := range sc.attrs {
				if string(a.prefix) == "xmlns" || len(a.prefix) == 0 && string(a.local) == "xmlns" {
					continue
				}
				v, _ := decodeEntities(nil, a.raw)
				s += fmt.Sprintf(" %d:%s=%q", a.ns, a.local, v)
			}
			out = append(out, s)
		case tokEnd:
			flush()
			out = append(out, fmt.Sprintf("end %d:%s", sc.ns, sc.local))
		}
	}
}

// stdTokens lists encoding/xml's tokens the same way; ok is false for a
// document it refuses or that holds a directive, which the scanner
// refuses by design.
func stdTokens(data []byte) ([]string, bool) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var out []string
	text := ""
	flush := func() {
		if text != "" {
			out = append(out, "text "+text)
			text = ""
		}
	}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			flush()
			return out, true
		}
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.CharData:
			text += string(t)
		case xml.StartElement:
			flush()
			s := fmt.Sprintf("start %d:%s", namespaceIDs[t.Name.Space], t.Name.Local)
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					continue
				}
				s += fmt.Sprintf(" %d:%s=%q", namespaceIDs[a.Name.Space], a.Name.Local, a.Value)
			}
			out = append(out, s)
		case xml.EndElement:
			flush()
			out = append(out, fmt.Sprintf("end %d:%s", namespaceIDs[t.Name.Space], t.Name.Local))
		case xml.Directive:
			return nil, false
		}
	}
}

func FuzzXMLScanner(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0"?><a xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><b r:id="x&amp;y" c='1'>t&lt;&#x41;&#66;</b><c/><!-- note --><![CDATA[<raw>]]></a>`,
		"<w:p xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">\r\n<w:t xml:space=\"preserve\"> a\rb </w:t></w:p >",
		`<a><b xmlns="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><c/></b><c/></a>`,
		"\xef\xbb\xbf<a>" + strings.Repeat("x", 70000) + "&amp;</a>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// encoding/xml reads a UTF-8 byte order mark as text; the scanner
		// drops it, as XML processors must.
		want, ok := stdTokens(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		got, err := scanTokens(data)
		if !ok {
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "limit") {
				return
			}
			t.Fatalf("scanner refused a document encoding/xml reads: %v\n%q", err, data)
		}
		for i := 0; i < max(len(got), len(want)); i++ {
			g, w := "(none)", "(none)"
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Fatalf("token %d of %.200q: scanner %.200q, encoding/xml %.200q", i, data, g, w)
			}
		}
	})
}

// TestScannerEndTags checks that an end tag must name the element it
// closes byte for byte: a prefix, a case, a letter or a length apart is
// malformed, and a name longer than the scanner keeps is refused.
func TestScannerEndTags(t *testing.T) {
	tests := []struct {
		name, doc string
		wantErr   string // "" for a well-formed document
	}{
		{"matching", `<w:p><w:r>x</w:r ></w:p>`, ""},
		{"other local name", `<w:p><w:r>x</w:t></w:p>`, "does not match"},
		{"other prefix", `<w:p><w:r>x</a:r></w:p>`, "does not match"},
		{"prefix dropped", `<w:p><w:r>x</r></w:p>`, "does not match"},
		{"other case", `<w:p></w:P>`, "does not match"},
		{"a letter longer", `<w:p></w:pp>`, "does not match"},
		{"a letter shorter", `<w:pp></w:p>`, "does not match"},
		{"closing the parent first", `<a><b></a></b>`, "does not match"},
		{"end tag with nothing open", `<a/></a>`, "does not match"},
		{"long matching names", "<" + strings.Repeat("n", 4000) + "><" + strings.Repeat("m", 4000) + "/></" + strings.Repeat("n", 4000) + ">", ""},
		{"name past the limit", "<" + strings.Repeat("n", maxNameBytes+1) + "/>", "element name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scanTokens([]byte(tt.doc))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("scan(%.60q) error = %v; want none", tt.doc, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("scan(%.60q) error = %v; want one saying %q", tt.doc, err, tt.wantErr)
			}
		})
	}
}

// TestScannerClosesWhereReadingStopped reads a part through a budget
// whose text is cut from the start and that may measure 1,000 bytes:
// the scanner reads the whole tokens of what was read, drops the one cut
// by the stop, and ends the part there, giving the end tags of the
// elements still open, innermost first, with their namespaces, and then
// the end of the part, as if the part were whole.
func TestScannerClosesWhereReadingStopped(t *testing.T) {
	doc := `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
		strings.Repeat(`<w:p><w:r><w:t>a word</w:t></w:r></w:p>`, 100_000) + `</w:body></w:document>`
	b := newBudget(1 << 20)
	b.measure, b.cut = 1000, func() bool { return true }
	src := strings.NewReader(doc)
	sc := newXMLScanner(context.Background(), b.reader(src), Limits{}.withDefaults(), nil)
	var open, closed []string
	text := 0
	for {
		k, err := sc.next()
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		if k == tokEOF {
			break
		}
		name := fmt.Sprintf("%d:%s", sc.ns, sc.local)
		switch k {
		case tokText:
			text += len(sc.text)
		case tokStart:
			open = append(open, name)
		case tokEnd:
			if n := len(open); n == 0 || open[n-1] != name {
				t.Fatalf("end %s; want the end of %v's last", name, open)
			}
			open = open[:len(open)-1]
			closed = append(closed, name)
		}
	}
	w := nsWML
	if n := len(closed); len(open) != 0 || n < 2 || closed[n-2] != fmt.Sprintf("%d:body", w) || closed[n-1] != fmt.Sprintf("%d:document", w) {
		t.Errorf("left open %v, closed last %v; want every element closed, the body and the document last", open, closed[max(len(closed)-2, 0):])
	}
	if read := len(doc) - src.Len(); read != 1000 || text < 6*20 || !b.stopped {
		t.Errorf("read %d bytes, %d of text, stopped %v; want the 1,000 measured, the words in them, stopped", read, text, b.stopped)
	}
}
