package convert_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// TestReadingStopsPastTheCap converts files of each package kind far
// longer than the cap twice: with [convert.Limits].MaxMeasured small,
// so that reading stops soon after the cap cut the text, and with it
// large enough to read them to the end. Stopping must not change what
// the text shows (the rows of a sheet, past its heading, which then
// says "at least"), only how much of the rest is counted: lower bounds,
// said so, and never more than the whole count. Parts read in part or
// not at all are marked, and the description says so.
func TestReadingStopsPastTheCap(t *testing.T) {
	const n = 8000 // paragraphs, rows, cells: several hundred kilobytes of XML
	var paras, rows, slideParas, odtParas, odsRows, pages, chapter strings.Builder
	for i := range n {
		fmt.Fprintf(&paras, `<w:p><w:r><w:t>Paragraph %d of the report, long enough to count.</w:t></w:r></w:p>`, i)
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>row %d</t></is></c></row>`, i+1, i+1, i, i+1, i)
		fmt.Fprintf(&slideParas, `<a:p><a:r><a:t>Point %d of the slide</a:t></a:r></a:p>`, i)
		fmt.Fprintf(&odtParas, `<text:p>Paragraph %d of the document, long enough to count.</text:p>`, i)
		fmt.Fprintf(&odsRows, `<table:table-row>%s%s</table:table-row>`, odsCell("float", fmt.Sprintf(` office:value="%d"`, i), fmt.Sprint(i)), odsCell("string", "", fmt.Sprintf("row %d", i)))
		fmt.Fprintf(&chapter, `<p>Paragraph %d of the chapter, long enough to count.</p>`, i)
	}
	pages.WriteString(`<draw:page draw:name="one"><draw:frame><draw:text-box>` + odtParas.String() + `</draw:text-box></draw:frame></draw:page>`)
	pages.WriteString(`<draw:page draw:name="two"><draw:frame><draw:text-box><text:p>Second slide</text:p></draw:text-box></draw:frame></draw:page>`)

	docx := makeZip(t, part{"_rels/.rels", packageRels("word/document.xml")},
		part{"word/document.xml", xmlDecl + `<w:document ` + wordNamespaces + `><w:body>` + paras.String() + `</w:body></w:document>`})
	docxTable := makeZip(t, part{"_rels/.rels", packageRels("word/document.xml")},
		part{"word/document.xml", xmlDecl + `<w:document ` + wordNamespaces + `><w:body><w:tbl>` + strings.ReplaceAll(strings.ReplaceAll(paras.String(), "<w:p>", "<w:tr><w:tc><w:p>"), "</w:p>", "</w:p></w:tc></w:tr>") + `</w:tbl></w:body></w:document>`})
	xlsxParts := workbookParts(xmlDecl + `<worksheet ` + sml + `><dimension ref="A1:B8000"/><sheetData>` + rows.String() + sheetTail)
	xlsxParts[2] = part{"xl/workbook.xml", xmlDecl + `<workbook ` + sml + ` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Big" sheetId="1" r:id="rId1"/><sheet name="Small" sheetId="2" r:id="rId2"/></sheets></workbook>`}
	xlsxParts[3] = part{"xl/_rels/workbook.xml.rels", rels(relItem("rId1", "worksheet", "worksheets/sheet1.xml"), relItem("rId2", "worksheet", "worksheets/sheet2.xml"))}
	xlsxParts = append(xlsxParts, part{"xl/worksheets/sheet2.xml", sheetHead + `<row r="1"><c r="A1"><v>7</v></c></row>` + sheetTail})
	presentation := xmlDecl + `<p:presentation ` + pptNamespaces + `><p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst></p:presentation>`
	pptx := makeZip(t, part{"_rels/.rels", packageRels("ppt/presentation.xml")},
		part{"ppt/presentation.xml", presentation},
		part{"ppt/_rels/presentation.xml.rels", rels(relItem("rId2", "slide", "slides/slide1.xml"), relItem("rId3", "slide", "slides/slide2.xml"))},
		part{"ppt/slides/slide1.xml", pptSlide("", `<p:sp><p:txBody>`+slideParas.String()+`</p:txBody></p:sp>`)},
		part{"ppt/slides/slide2.xml", pptSlide("", pptShape("2", `<p:ph type="title"/>`, pptPara("", "Second slide")))})
	opf := xmlDecl + `<package xmlns="http://www.idpf.org/2007/opf"><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>`
	epub := makeZip(t, part{"mimetype", "application/epub+zip"},
		part{"META-INF/container.xml", xmlDecl + `<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		part{"content.opf", opf},
		part{"c1.xhtml", "<html><body>" + chapter.String() + "</body></html>"},
		part{"c2.xhtml", "<html><body><p>Second chapter</p></body></html>"})

	for _, tt := range []struct {
		name     string
		data     []byte
		desc     string // what the stopped conversion's description says
		unread   int    // parts not read at all, at the end
		headings bool   // the text's "# " lines may differ: a sheet's size
	}{
		{"report.docx", docx, "at least", 0, false},
		{"table.docx", docxTable, "at least", 0, false},
		{"big.xlsx", makeZip(t, xlsxParts...), `"Big" (at least `, 1, true},
		{"deck.pptx", pptx, "2 slides, 1 not read", 1, false},
		{"report.odt", odfPackage(t, "application/vnd.oasis.opendocument.text", `<office:body><office:text>`+odtParas.String()+`</office:text></office:body>`, ""), "at least", 0, false},
		{"big.ods", odfPackage(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:body><office:spreadsheet><table:table table:name="Big">`+odsRows.String()+`</table:table><table:table table:name="Small"><table:table-row>`+odsCell("float", ` office:value="7"`, "7")+`</table:table-row></table:table></office:spreadsheet></office:body>`, ""), "sheets after these were not read", 0, true},
		{"deck.odp", odfPackage(t, "application/vnd.oasis.opendocument.presentation", `<office:body><office:presentation>`+pages.String()+`</office:presentation></office:body>`, ""), "at least 1 slide", 0, false},
		{"book.epub", epub, "at least", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			convertWith := func(measured int64) *convert.Result {
				t.Helper()
				lim := convert.Limits{MaxChars: 2000, MaxMeasured: measured}
				res, err := convert.Default().WithLimits(lim).Convert(context.Background(), convert.Input{Name: tt.name, Data: tt.data})
				if err != nil {
					t.Fatalf("Convert(%s) with MaxMeasured %d: %v", tt.name, measured, err)
				}
				return res
			}
			whole, stopped := convertWith(1<<30), convertWith(16<<10)
			if whole.Omitted.AtLeast || !whole.Omitted.Any() {
				t.Fatalf("read to the end: Omitted = %+v; want the cap to cut it, counted exactly", whole.Omitted)
			}
			o, w := stopped.Omitted, whole.Omitted
			if !o.AtLeast || o.Chars <= 0 || o.Chars >= w.Chars || o.Units > w.Units || o.Unit != w.Unit {
				t.Errorf("stopped: Omitted = %+v; want lower bounds of %+v, said to be", o, w)
			}
			// A sheet's longer heading leaves room for fewer rows.
			got, want := shown(stopped.Text, tt.headings), shown(whole.Text, tt.headings)
			if tt.headings && strings.HasPrefix(want, got) && len(got) > len(want)*9/10 {
				want = got
			}
			if got != want {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("stopped: the text shown differs at byte %d:\n%q\nwant\n%q", i, got[max(i-100, 0):min(len(got), i+200)], want[max(i-100, 0):min(len(want), i+200)])
			}
			if tt.name == "big.xlsx" && !strings.Contains(stopped.Description+stopped.Text, "A1:B8000 stated") {
				t.Errorf("stopped: %q; want the range the sheet states", stopped.Description)
			}
			if !strings.Contains(stopped.Description, tt.desc) || stopped.Description == whole.Description {
				t.Errorf("stopped: Description = %q (read to the end: %q); want it to say %q", stopped.Description, whole.Description, tt.desc)
			}
			for i, p := range stopped.Parts {
				read := i < len(stopped.Parts)-tt.unread
				switch {
				case i == 0 && !p.Partial:
					t.Errorf("stopped: Parts[0] = %+v; want it marked read in part", p)
				case !read && (!p.Partial || p.Rows != 0):
					t.Errorf("stopped: Parts[%d] = %+v; want it marked not read, and empty", i, p)
				}
			}
			if tt.unread > 0 && (len(stopped.Parts) != len(whole.Parts) || !strings.Contains(stopped.Text+stopped.Description, "not read")) {
				t.Errorf("stopped: %d parts, %q; want all %d, those not read said to be", len(stopped.Parts), stopped.Description, len(whole.Parts))
			}
		})
	}
}

// shown is a converted text without its heading lines when headings is
// set: a sheet's heading says its size, at least what was read when
// reading stopped in it.
func shown(text string, headings bool) string {
	if !headings {
		return text
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, "# ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
