package convert_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/convert"
)

// inflated is a deflate stream of prefix, then unit n times, then
// suffix, with the size and CRC of what it inflates to, made without
// building those bytes: a chunk of whole units is compressed once and
// its blocks repeated, which is valid because each piece is compressed
// from an empty window and flushed to a byte boundary.
type inflated struct {
	raw  []byte
	size uint64
	crc  uint32
}

func repeatDeflate(tb testing.TB, prefix, unit string, n int, suffix string) inflated {
	tb.Helper()
	per := max(1, (1<<20)/len(unit))
	chunks, rest := n/per, n%per
	piece := func(s string) []byte {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression)
		w.Write([]byte(s))
		w.Flush()
		return b.Bytes()
	}
	chunk := strings.Repeat(unit, per)
	tail := strings.Repeat(unit, rest) + suffix
	h := crc32.NewIEEE()
	h.Write([]byte(prefix))
	out := piece(prefix)
	c := piece(chunk)
	for range chunks {
		out = append(out, c...)
		h.Write([]byte(chunk))
	}
	out = append(out, piece(tail)...)
	h.Write([]byte(tail))
	var end bytes.Buffer
	w, _ := flate.NewWriter(&end, flate.BestCompression)
	w.Close()
	out = append(out, end.Bytes()...)
	return inflated{raw: out, size: uint64(len(prefix)) + uint64(n)*uint64(len(unit)) + uint64(len(suffix)), crc: h.Sum32()}
}

// bombPackage writes a zip of the given parts, in order, with member
// name holding the stream, its size and CRC declared truly.
func bombPackage(tb testing.TB, name string, bomb inflated, others ...part) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range others {
		method := zip.Deflate
		if p.name == "mimetype" {
			method = zip.Store
		}
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: method})
		w.Write([]byte(p.body))
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: uint64(len(bomb.raw)), UncompressedSize64: bomb.size, CRC32: bomb.crc})
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(bomb.raw)
	zw.Close()
	return buf.Bytes()
}

// odfBomb is an OpenDocument package whose content.xml is the bomb.
func odfBomb(tb testing.TB, mime string, bomb inflated) []byte {
	return bombPackage(tb, "content.xml", bomb, part{"mimetype", mime})
}

// bombCase is a file made to cost a converter far more than its size.
type bombCase struct {
	name string
	make func() convert.Input
	want bombOutcome
	says []string // what the text or its description must say
}

// bombOutcome is how a bomb must end.
type bombOutcome uint8

const (
	wantLimit   bombOutcome = iota // a *convert.LimitError
	wantCut                        // a result cut by the cap
	wantStopped                    // a result cut by the cap, reading stopped past it: its counts are lower bounds
	wantResult                     // a result
)

const (
	sml       = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	sheetHead = xmlDecl + `<worksheet ` + sml + `><sheetData>`
	sheetTail = `</sheetData></worksheet>`
	run64     = `<w:r><w:t>` + "abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz abcdefghij" + `</w:t></w:r>`
)

// bombCases are the files of every kind that cost the most for their
// size: each is at most 10 MiB, and most inflate to the unpacked limit.
func bombCases(tb testing.TB) []bombCase {
	tb.Helper()
	// xlsxWith is a workbook whose part name is the bomb; the parts of
	// extra replace those of the same name.
	xlsxWith := func(name string, bomb inflated, extra ...part) []byte {
		parts := workbookParts(`<worksheet ` + sml + `><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`)
		parts[3] = part{"xl/_rels/workbook.xml.rels", rels(relItem("rId1", "worksheet", "worksheets/sheet1.xml"), relItem("rId2", "sharedStrings", "sharedStrings.xml"), relItem("rId3", "styles", "styles.xml"))}
		parts = append(parts, part{"xl/sharedStrings.xml", xmlDecl + `<sst ` + sml + `><si><t>a</t></si></sst>`})
		var others []part
		for _, p := range parts {
			for _, e := range extra {
				if e.name == p.name {
					p = e
				}
			}
			if p.name != name {
				others = append(others, p)
			}
		}
		return bombPackage(tb, name, bomb, others...)
	}
	// numbers is a sheet of a number in cell format 1 (the first read)
	// and one in cell format 70,000 (past those read).
	numbers := part{"xl/worksheets/sheet1.xml", sheetHead + `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>0.5</v></c><c r="C1" s="70000"><v>0.25</v></c></row>` + sheetTail}
	docxWith := func(bomb inflated) []byte {
		return bombPackage(tb, "word/document.xml", bomb, part{"_rels/.rels", packageRels("word/document.xml")})
	}
	wordDoc := xmlDecl + `<w:document ` + wordNamespaces + `><w:body>`
	slide := xmlDecl + `<p:sld ` + pptNamespaces + `><p:cSld><p:spTree>`
	pptxWith := func(bomb inflated) []byte {
		presentation := xmlDecl + `<p:presentation ` + pptNamespaces + `><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>`
		return bombPackage(tb, "ppt/slides/slide1.xml", bomb,
			part{"_rels/.rels", packageRels("ppt/presentation.xml")},
			part{"ppt/presentation.xml", presentation},
			part{"ppt/_rels/presentation.xml.rels", rels(relItem("rId2", "slide", "slides/slide1.xml"))})
	}
	content := xmlDecl + `<office:document-content ` + odfNamespaces + `><office:body>`
	const (
		odt = "application/vnd.oasis.opendocument.text"
		ods = "application/vnd.oasis.opendocument.spreadsheet"
		odp = "application/vnd.oasis.opendocument.presentation"
	)
	mib := 1 << 20
	var mail strings.Builder
	mail.WriteString("From: a@example.com\r\nTo: b@example.com\r\nSubject: parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n")
	for mail.Len() < 10*mib-200 {
		mail.WriteString("--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=x\r\n\r\nx\r\n")
	}
	mail.WriteString("--b--\r\n")
	var nested strings.Builder
	nested.WriteString("From: a@example.com\r\nSubject: nested\r\nMIME-Version: 1.0\r\n")
	for i := range 300 {
		fmt.Fprintf(&nested, "Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n", i, i)
	}
	return []bombCase{
		{"xlsx: 49.9 M empty shared strings (365 KB)", func() convert.Input {
			return convert.Input{Name: "sst.xlsx", Data: xlsxWith("xl/sharedStrings.xml", repeatDeflate(tb, xmlDecl+`<sst `+sml+`>`, `<si/>`, 49_900_000, `</sst>`))}
		}, wantLimit, nil},
		{"xlsx: 14 M one-letter shared strings (579 KB)", func() convert.Input {
			return convert.Input{Name: "sst.xlsx", Data: xlsxWith("xl/sharedStrings.xml", repeatDeflate(tb, xmlDecl+`<sst `+sml+`>`, `<si><t>a</t></si>`, 14_000_000, `</sst>`))}
		}, wantLimit, nil},
		{"xlsx: one shared string of 250 MB", func() convert.Input {
			return convert.Input{Name: "sst.xlsx", Data: xlsxWith("xl/sharedStrings.xml", repeatDeflate(tb, xmlDecl+`<sst `+sml+`><si>`, `<r><t>`+strings.Repeat("a", 1000)+`</t></r>`, 250_000, `</si></sst>`))}
		}, wantLimit, nil},
		{"xlsx: one inline string of 250 MB", func() convert.Input {
			return convert.Input{Name: "cell.xlsx", Data: xlsxWith("xl/worksheets/sheet1.xml", repeatDeflate(tb, sheetHead+`<row r="1"><c r="A1" t="inlineStr"><is>`, `<r><t>`+strings.Repeat("a", 1000)+`</t></r>`, 250_000, `</is></c></row>`+sheetTail))}
		}, wantStopped, []string{"at least 1 row × 1 column"}},
		{"xlsx: 6 M number formats", func() convert.Input {
			return convert.Input{Name: "styles.xlsx", Data: xlsxWith("xl/styles.xml", repeatDeflate(tb, xmlDecl+`<styleSheet `+sml+`><numFmts>`, `<numFmt numFmtId="200" formatCode="0.00%"/>`, 6_000_000, `</numFmts><cellXfs><xf/><xf numFmtId="200"/></cellXfs></styleSheet>`), numbers)}
		}, wantResult, []string{"a,0.5,0.25\n", "shown as stored"}},
		{"xlsx: 14 M cell formats", func() convert.Input {
			return convert.Input{Name: "styles.xlsx", Data: xlsxWith("xl/styles.xml", repeatDeflate(tb, xmlDecl+`<styleSheet `+sml+`><cellXfs>`, `<xf numFmtId="10"/>`, 14_000_000, `</cellXfs></styleSheet>`), numbers)}
		}, wantResult, []string{"a,50.00%,0.25\n", "shown as stored"}},
		{"xlsx: 6 M cells", func() convert.Input {
			return convert.Input{Name: "cells.xlsx", Data: xlsxWith("xl/worksheets/sheet1.xml", repeatDeflate(tb, sheetHead, `<row>`+strings.Repeat(`<c t="inlineStr"><is><t>ab</t></is></c>`, 20)+`</row>`, 300_000, sheetTail))}
		}, wantStopped, []string{"at least", "rows × 20 columns"}},
		{"docx: a paragraph of 250 MB", func() convert.Input {
			return convert.Input{Name: "para.docx", Data: docxWith(repeatDeflate(tb, wordDoc+`<w:p>`, run64, 3_000_000, `</w:p></w:body></w:document>`))}
		}, wantStopped, nil},
		{"docx: a table of 4 M rows", func() convert.Input {
			return convert.Input{Name: "table.docx", Data: docxWith(repeatDeflate(tb, wordDoc+`<w:tbl>`, `<w:tr><w:tc><w:p><w:r><w:t>a</w:t></w:r></w:p></w:tc></w:tr>`, 4_000_000, `</w:tbl></w:body></w:document>`))}
		}, wantStopped, nil},
		{"docx: a table cell of 250 MB", func() convert.Input {
			return convert.Input{Name: "cell.docx", Data: docxWith(repeatDeflate(tb, wordDoc+`<w:tbl><w:tr><w:tc>`, `<w:p>`+run64+`</w:p>`, 2_500_000, `</w:tc></w:tr></w:tbl></w:body></w:document>`))}
		}, wantStopped, nil},
		{"docx: 3 M styles", func() convert.Input {
			return convert.Input{Name: "styles.docx", Data: bombPackage(tb, "word/styles.xml", repeatDeflate(tb, xmlDecl+`<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">`, `<w:style w:type="paragraph" w:styleId="S"><w:name w:val="heading 1"/></w:style>`, 3_000_000, `</w:styles>`),
				part{"_rels/.rels", packageRels("word/document.xml")}, part{"word/document.xml", wordDoc + `<w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`}, part{"word/_rels/document.xml.rels", rels(relItem("rId1", "styles", "styles.xml"))})}
		}, wantResult, nil},
		{"pptx: a paragraph of 250 MB", func() convert.Input {
			return convert.Input{Name: "para.pptx", Data: pptxWith(repeatDeflate(tb, slide+`<p:sp><p:txBody><a:p>`, `<a:r><a:t>`+strings.Repeat("a", 1000)+`</a:t></a:r>`, 250_000, `</a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`))}
		}, wantStopped, nil},
		{"pptx: 5 M paragraphs in a shape", func() convert.Input {
			return convert.Input{Name: "paras.pptx", Data: pptxWith(repeatDeflate(tb, slide+`<p:sp><p:txBody>`, `<a:p><a:r><a:t>ab</a:t></a:r></a:p>`, 7_000_000, `</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`))}
		}, wantStopped, nil},
		{"pptx: a table of 5 M rows", func() convert.Input {
			return convert.Input{Name: "table.pptx", Data: pptxWith(repeatDeflate(tb, slide+`<p:graphicFrame><a:graphic><a:graphicData><a:tbl>`, `<a:tr><a:tc><a:txBody><a:p><a:r><a:t>a</a:t></a:r></a:p></a:txBody></a:tc></a:tr>`, 3_000_000, `</a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree></p:cSld></p:sld>`))}
		}, wantStopped, nil},
		{"odt: a paragraph of 250 MB", func() convert.Input {
			return convert.Input{Name: "para.odt", Data: odfBomb(tb, odt, repeatDeflate(tb, content+`<office:text><text:p>`, `<text:span>`+strings.Repeat("a", 1000)+`</text:span>`, 250_000, `</text:p></office:text></office:body></office:document-content>`))}
		}, wantStopped, nil},
		{"odt: a table of 2.5 M rows", func() convert.Input {
			return convert.Input{Name: "table.odt", Data: odfBomb(tb, odt, repeatDeflate(tb, content+`<office:text><table:table>`, `<table:table-row><table:table-cell><text:p>a</text:p></table:table-cell></table:table-row>`, 2_500_000, `</table:table></office:text></office:body></office:document-content>`))}
		}, wantStopped, nil},
		{"odt: a table cell of 250 MB", func() convert.Input {
			return convert.Input{Name: "cell.odt", Data: odfBomb(tb, odt, repeatDeflate(tb, content+`<office:text><table:table><table:table-row><table:table-cell>`, `<text:p>`+strings.Repeat("a", 1000)+`</text:p>`, 250_000, `</table:table-cell></table:table-row></table:table></office:text></office:body></office:document-content>`))}
		}, wantStopped, nil},
		{"ods: a cell of 250 MB", func() convert.Input {
			return convert.Input{Name: "cell.ods", Data: odfBomb(tb, ods, repeatDeflate(tb, content+`<office:spreadsheet><table:table table:name="S"><table:table-row><table:table-cell office:value-type="string">`, `<text:p>`+strings.Repeat("a", 1000)+`</text:p>`, 250_000, `</table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`))}
		}, wantStopped, nil},
		{"ods: 2.5 M cells", func() convert.Input {
			return convert.Input{Name: "cells.ods", Data: odfBomb(tb, ods, repeatDeflate(tb, content+`<office:spreadsheet><table:table table:name="S">`, `<table:table-row><table:table-cell><text:p>ab</text:p></table:table-cell></table:table-row>`, 2_500_000, `</table:table></office:spreadsheet></office:body></office:document-content>`))}
		}, wantStopped, nil},
		{"odp: a frame of 250 MB", func() convert.Input {
			return convert.Input{Name: "frame.odp", Data: odfBomb(tb, odp, repeatDeflate(tb, content+`<office:presentation><draw:page><draw:frame><draw:text-box><text:p>`, `<text:span>`+strings.Repeat("a", 1000)+`</text:span>`, 250_000, `</text:p></draw:text-box></draw:frame></draw:page></office:presentation></office:body></office:document-content>`))}
		}, wantStopped, nil},
		{"zip: 5,000 members of 63 KiB of text", func() convert.Input { return convert.Input{Name: "texts.zip", Data: textMembersZip(tb, 5000)} }, wantCut, nil},
		{"tar.gz: 250 entries of 1 MiB names", func() convert.Input { return convert.Input{Name: "names.tar.gz", Data: longNamesTar(tb, 250)} }, wantCut, nil},
		{"eml: 10 MiB of one-byte attachments", func() convert.Input { return convert.Input{Name: "parts.eml", Data: []byte(mail.String())} }, wantLimit, nil},
		{"eml: 300 nested multiparts", func() convert.Input { return convert.Input{Name: "nested.eml", Data: []byte(nested.String())} }, wantLimit, nil},
		{"eml: an HTML body of 10 MiB", func() convert.Input {
			return convert.Input{Name: "html.eml", Data: []byte("From: a@example.com\r\nSubject: html\r\nContent-Type: text/html\r\n\r\n" + strings.Repeat("<p><b>x</b> <a href='#'>y</a></p>", 10*mib/35))}
		}, wantCut, nil},
		{"rtf: 10 MiB of Unicode escapes", func() convert.Input {
			return convert.Input{Name: "u.rtf", Data: []byte(`{\rtf1 ` + strings.Repeat(`\u8364?`, 10*mib/8) + `}`)}
		}, wantCut, nil},
		{"rtf: 10 MiB of paragraphs", func() convert.Input {
			return convert.Input{Name: "p.rtf", Data: []byte(`{\rtf1 ` + strings.Repeat(`a\par `, 10*mib/6-2) + `}`)}
		}, wantCut, nil},
		{"xls: 2 M empty shared strings", func() convert.Input {
			return convert.Input{Name: "sst.xls", Data: biffSSTBomb(tb, 2_000_000)}
		}, wantResult, nil},
		{"doc: a paragraph of 3 M characters", func() convert.Input {
			return convert.Input{Name: "para.doc", Data: wordBomb(tb, 3_000_000)}
		}, wantCut, nil},
		{"msg: 5,000 recipients", func() convert.Input {
			kids := []*cfbNode{storage("__nameid_version1.0"), stream("__properties_version1.0", make([]byte, 32))}
			for i := range 5001 {
				kids = append(kids, storage(fmt.Sprintf("__recip_version1.0_#%08X", i), stream("__substg1.0_3001001F", utf16le("A Person"))))
			}
			data, _ := writeCFB(tb, storage("Root Entry", kids...))
			return convert.Input{Name: "many.msg", Data: data}
		}, wantLimit, nil},
		{"html: 10 MiB in one paragraph", func() convert.Input {
			return convert.Input{Name: "p.html", Data: []byte("<!DOCTYPE html><p>" + strings.Repeat("<b>word</b> ", 10*mib/12-8))}
		}, wantCut, nil},
		{"html: 500,000 nested elements", func() convert.Input {
			return convert.Input{Name: "deep.html", Data: []byte("<!DOCTYPE html>" + strings.Repeat("<div><span>", 500_000))}
		}, wantLimit, nil},
		{"epub: a chapter of 250 MB", func() convert.Input {
			opf := xmlDecl + `<package xmlns="http://www.idpf.org/2007/opf"><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`
			return convert.Input{Name: "book.epub", Data: bombPackage(tb, "c.xhtml", repeatDeflate(tb, "<html><body><p>", strings.Repeat("a", 1000)+" ", 250_000, "</p></body></html>"),
				part{"mimetype", "application/epub+zip"},
				part{"META-INF/container.xml", xmlDecl + `<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
				part{"content.opf", opf})}
		}, wantStopped, nil},
		{"text: 10 MiB of UTF-16 on one line", func() convert.Input {
			return convert.Input{Name: "u.txt", MediaType: "text/plain", Data: append([]byte{0xFF, 0xFE}, bytes.Repeat([]byte{'a', 0}, 5*mib-1)...)}
		}, wantCut, nil},
	}
}

// longNamesTar is a tar.gz of n empty files named by a PAX record of
// 1 MiB each (the most archive/tar reads), about 1 KiB compressed each:
// the entries are alike, so their bytes are deflated once and repeated.
func longNamesTar(tb testing.TB, n int) []byte {
	var entry bytes.Buffer
	tw := tar.NewWriter(&entry)
	name := "d/" + strings.Repeat("n", (1<<20)-2048)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		tb.Fatal(err)
	}
	tw.Flush()
	d := repeatDeflate(tb, "", entry.String(), n, string(make([]byte, 1024)))
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	out = append(out, d.raw...)
	out = binary.LittleEndian.AppendUint32(out, d.crc)
	return binary.LittleEndian.AppendUint32(out, uint32(d.size))
}

// textMembersZip is a zip of n members of 64 KiB of text each (just
// under the size whose text is shown), compressed once and stored n
// times.
func textMembersZip(tb testing.TB, n int) []byte {
	body := strings.Repeat("line of text\n", (63<<10)/13)
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write([]byte(body))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("m%05d.txt", i), Method: zip.Deflate, CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(len(body)), CRC32: crc32.ChecksumIEEE([]byte(body))})
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(raw.Bytes())
	}
	zw.Close()
	return buf.Bytes()
}

// liveHeap collects garbage and returns the heap left, the baseline a
// conversion's peak is measured from.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestBombs converts each bomb and checks that it ends as it should (a
// [*convert.LimitError], a result cut by the cap, counted exactly or,
// once reading stopped past the cap, as lower bounds), with the live
// heap staying under 100 MiB. Their time is measured by BenchmarkBombs.
func TestBombs(t *testing.T) {
	const maxPeak = 100 << 20
	for _, bc := range bombCases(t) {
		t.Run(bc.name, func(t *testing.T) {
			in := bc.make()
			if len(in.Data) > 10<<20 {
				t.Fatalf("the bomb is %d bytes; bombs are at most 10 MiB", len(in.Data))
			}
			base := liveHeap()
			p := startPeakHeap()
			start := time.Now()
			lim := convert.Limits{}
			if raceEnabled {
				// The race detector makes reading 256 MB of XML take
				// minutes: the bombs stop at 8 MiB instead, which still
				// shows whether what a converter keeps grows with the file.
				lim.MaxUnpacked = 8 << 20
			}
			res, err := convert.Default().WithLimits(lim).Convert(context.Background(), in)

			took := time.Since(start)
			peak := p.Stop() - min(base, p.peak)
			var le *convert.LimitError
			switch {
			case raceEnabled && errors.As(err, &le) && le.Limit == "unpacked bytes":
			case bc.want == wantLimit && !errors.As(err, &le):
				t.Errorf("Convert(%s) error = %v (%T); want a *convert.LimitError", in.Name, err, err)
			case bc.want != wantLimit && err != nil:
				t.Errorf("Convert(%s) error = %v; want a result", in.Name, err)
			case (bc.want == wantCut || bc.want == wantStopped) && !res.Omitted.Any():
				t.Errorf("Convert(%s) left nothing out; want the cap to cut it", in.Name)
			case bc.want == wantStopped && !res.Omitted.AtLeast:
				t.Errorf("Convert(%s) left out %+v, counted to the end; want reading stopped past the cap, and the counts said to be lower bounds", in.Name, res.Omitted)
			case bc.want == wantCut && res.Omitted.AtLeast:
				t.Errorf("Convert(%s) left out %+v, as lower bounds; want it counted exactly", in.Name, res.Omitted)
			case err == nil:
				for _, s := range bc.says {
					if !strings.Contains(res.Description+"\n"+res.Text, s) {
						t.Errorf("Convert(%s) = %q, %q; want it to say %q", in.Name, res.Description, res.Text[:min(len(res.Text), 300)], s)
					}
				}
			}
			if peak > maxPeak {
				t.Errorf("Convert(%s): live heap peaked at %.1f MiB; want at most %d MiB", in.Name, float64(peak)/(1<<20), maxPeak>>20)
			}
			t.Logf("%d bytes: %v; heap peak %.1f MiB; %v", len(in.Data), err, float64(peak)/(1<<20), took.Round(time.Millisecond))
		})
	}
}

// BenchmarkBombs times each bomb; the target is 1 s and 100 MiB of live
// heap for any file of at most 10 MiB.
//
//	go test -run '^$' -bench Bombs -benchtime 3x ./convert/
func BenchmarkBombs(b *testing.B) {
	for _, bc := range bombCases(b) {
		b.Run(strings.NewReplacer(" ", "_", ":", "").Replace(bc.name), func(b *testing.B) {
			reg := convert.Default()
			in := bc.make()
			b.SetBytes(int64(len(in.Data)))
			base := liveHeap()
			p := startPeakHeap()
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				reg.Convert(context.Background(), in)
			}
			b.StopTimer()
			reportCPU(b, cpu)
			b.ReportMetric(float64(p.Stop()-min(base, p.peak))/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(len(in.Data))/(1<<20), "file-MiB")
		})
	}
}

// biffSSTBomb is an Excel 97 workbook whose shared string table holds n
// empty strings, across CONTINUE records, and whose one sheet is empty.
func biffSSTBomb(tb testing.TB, n int) []byte {
	empty := []byte{0, 0, 0} // a count of 0 and the flags
	return biffSSTWorkbook(tb, n, func(int) []byte { return empty }, nil)
}

// biffSSTWorkbook is an Excel 97 workbook whose shared string table
// holds n strings, str(i) being string i as the table stores it (its
// count of characters, its flags, its characters), across CONTINUE
// records, and whose one sheet has a cell in column A of each row i+1
// that shows string refs[i].
func biffSSTWorkbook(tb testing.TB, n int, str func(i int) []byte, refs []int) []byte {
	le := binary.LittleEndian
	rec := biffRec
	bof := func(dt uint16) []byte { return biffBOF(0x0600, dt, 16) }
	body := make([]byte, 8, 8224)
	le.PutUint32(body, uint32(n))
	le.PutUint32(body[4:], uint32(n))
	var out []byte
	// A record holds at most 8,224 bytes, the rest follow in CONTINUE
	// records; every record here holds whole strings, as Excel may write
	// them (it also splits a string's characters, which the reader's
	// tests cover).
	typ := uint16(0x00FC)
	for i := range n {
		s := str(i)
		if len(body)+len(s) > 8224 {
			out = append(out, rec(typ, body)...)
			typ, body = 0x003C, body[:0]
		}
		body = append(body, s...)
	}
	out = append(out, rec(typ, body)...)
	bs := make([]byte, 8)
	bs[6], bs[7] = 1, 0
	globals := append(bof(0x0005), rec(0x0085, append(bs, 'S'))...)
	globals = append(globals, out...)
	globals = append(globals, rec(0x000A, nil)...)
	le.PutUint32(globals[4+16+4:], uint32(len(globals)))
	sheet := bof(0x0010)
	for row, ref := range refs {
		cell := make([]byte, 10)
		le.PutUint16(cell, uint16(row))
		le.PutUint32(cell[6:], uint32(ref))
		sheet = append(sheet, rec(0x00FD, cell)...)
	}
	book := append(globals, append(sheet, rec(0x000A, nil)...)...)
	data, _ := writeCFB(tb, storage("Root Entry", stream("Workbook", book)))
	return data
}

// wordBomb is a Word 97 document of one paragraph of n characters: a
// file information block, one piece of 8-bit text, and no properties.
func wordBomb(tb testing.TB, n int) []byte {
	le := binary.LittleEndian
	fib := make([]byte, 1024)
	le.PutUint16(fib, 0xA5EC)
	le.PutUint16(fib[2:], 0x00C1)
	le.PutUint16(fib[0x0A:], 0x0200) // the table stream is 1Table
	le.PutUint16(fib[32:], 0)        // csw
	le.PutUint16(fib[34:], 22)       // cslw
	le.PutUint32(fib[36+4*3:], uint32(n))
	le.PutUint16(fib[36+4*22:], 93) // cbRgFcLcb
	blob := 36 + 4*22 + 2
	text := bytes.Repeat([]byte("a"), n)
	word := append(fib, text...)
	// The piece table: one piece, CPs [0, n), 8-bit at byte 1024.
	plc := make([]byte, 4*2+8)
	le.PutUint32(plc[4:], uint32(n))
	le.PutUint32(plc[8+2:], uint32(1024*2)|0x40000000)
	clx := append([]byte{2, 0, 0, 0, 0}, plc...)
	le.PutUint32(clx[1:], uint32(len(plc)))
	le.PutUint32(word[blob+8*33:], 0)
	le.PutUint32(word[blob+8*33+4:], uint32(len(clx)))
	data, _ := writeCFB(tb, storage("Root Entry", stream("WordDocument", word), stream("1Table", clx)))
	return data
}
