package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// The namespaces LibreOffice declares on content.xml.
const odfNamespaces = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0" xmlns:loext="urn:org:documentfoundation:names:experimental:office:xmlns:loext:1.0" office:version="1.3"`

// odfPackage lays out an OpenDocument package as LibreOffice writes it:
// the mimetype first and stored, then the manifest, content, styles and
// metadata.
func odfPackage(t testing.TB, mime, body, styles string) []byte {
	manifest := xmlDecl + `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="` + mime + `"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/></manifest:manifest>`
	return makeZip(t,
		part{"mimetype", mime},
		part{"META-INF/manifest.xml", manifest},
		part{"content.xml", xmlDecl + `<office:document-content ` + odfNamespaces + `>` + body + `</office:document-content>`},
		part{"styles.xml", xmlDecl + `<office:document-styles ` + odfNamespaces + `><office:styles>` + styles + `</office:styles></office:document-styles>`},
		part{"meta.xml", xmlDecl + `<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.3"><office:meta><meta:generator xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0">LibreOffice/7.6</meta:generator></office:meta></office:document-meta>`},
	)
}

func odsCell(typ, attrs, text string) string {
	return `<table:table-cell office:value-type="` + typ + `" calcext:value-type="` + typ + `"` + attrs + `><text:p>` + text + `</text:p></table:table-cell>`
}

// leadsOds is a spreadsheet as LibreOffice Calc writes one: a merged
// title with its covered cells, floats shown formatted, a date, a time,
// a formula with its value, a boolean, identical rows folded into one
// repeated row, the million empty rows and thousand empty columns Calc
// writes after the data, and a hidden sheet.
func leadsOds(t testing.TB) []byte {
	empty := `<table:table-cell table:number-columns-repeated="1018"/>`
	body := `<office:automatic-styles><style:style style:name="co1" style:family="table-column"><style:table-column-properties fo:break-before="auto" style:column-width="0.889in"/></style:style><style:style style:name="ta1" style:family="table" style:master-page-name="Default"><style:table-properties table:display="true" style:writing-mode="lr-tb"/></style:style><style:style style:name="ta2" style:family="table" style:master-page-name="Default"><style:table-properties table:display="false" style:writing-mode="lr-tb"/></style:style><number:date-style style:name="N37"><number:month/><number:text>/</number:text><number:day/><number:text>/</number:text><number:year/></number:date-style><style:style style:name="ce1" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N37"/></office:automatic-styles>` +
		`<office:body><office:spreadsheet><table:calculation-settings table:automatic-find-labels="false"/>` +
		`<table:table table:name="Leads" table:style-name="ta1"><table:table-column table:style-name="co1" table:number-columns-repeated="1024" table:default-cell-style-name="Default"/>` +
		`<table:table-row table:style-name="ro1"><table:table-cell table:number-columns-spanned="3" table:number-rows-spanned="1" office:value-type="string" calcext:value-type="string"><text:p>Leads, 2024</text:p></table:table-cell><table:covered-table-cell table:number-columns-repeated="2"/>` + `<table:table-cell table:number-columns-repeated="1021"/></table:table-row>` +
		`<table:table-row table:style-name="ro1">` + odsCell("string", "", "Name") + odsCell("string", "", "Amount") + odsCell("string", "", "Signed") + odsCell("string", "", "Double") + odsCell("string", "", "At") + odsCell("string", "", "Paid") + empty + `</table:table-row>` +
		`<table:table-row table:style-name="ro1">` + odsCell("string", "", "山田 <text:s/>太郎") + odsCell("float", ` office:value="1204.5"`, "1,204.50") + odsCell("date", ` table:style-name="ce1" office:date-value="2024-03-01"`, "03/01/24") + odsCell("float", ` table:formula="of:=[.B3]*2" office:value="2409"`, "2409") + odsCell("time", ` office:time-value="PT13H45M00S"`, "01:45:00 PM") + odsCell("boolean", ` office:boolean-value="true"`, "TRUE") + empty + `</table:table-row>` +
		`<table:table-row table:style-name="ro1" table:number-rows-repeated="2">` + odsCell("string", "", "Ελένη") + odsCell("float", ` office:value="-7"`, "-7") + odsCell("date", ` office:date-value="2024-03-02T18:00:00"`, "03/02/24 18:00") + `<table:table-cell table:number-columns-repeated="1021"/></table:table-row>` +
		`<table:table-row table:style-name="ro1" table:number-rows-repeated="1048571"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>` +
		`<table:table table:name="Old" table:style-name="ta2"><table:table-column table:number-columns-repeated="2"/><table:table-row><table:table-cell/>` + odsCell("string", "", "kept") + `</table:table-row></table:table>` +
		`<table:named-expressions/></office:spreadsheet></office:body>`
	return odfPackage(t, "application/vnd.oasis.opendocument.spreadsheet", body, "")
}

// reportOdt is a text document as LibreOffice Writer writes one:
// headings by outline level, spans, spaces and tabs, a link, a footnote,
// bulleted and numbered lists from automatic list styles, and a table
// with a header row.
func reportOdt(t testing.TB) []byte {
	body := `<office:automatic-styles><style:style style:name="P1" style:family="paragraph" style:parent-style-name="Standard" style:list-style-name="L1"/><text:list-style style:name="L1"><text:list-level-style-bullet text:level="1" text:bullet-char="•"/><text:list-level-style-bullet text:level="2" text:bullet-char="◦"/></text:list-style><text:list-style style:name="L2"><text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1"/></text:list-style></office:automatic-styles>` +
		`<office:body><office:text><text:sequence-decls><text:sequence-decl text:display-outline-level="0" text:name="Table"/></text:sequence-decls>` +
		`<text:h text:style-name="Heading_20_1" text:outline-level="1">Quarterly report</text:h>` +
		`<text:p text:style-name="Standard">Sales rose <text:span text:style-name="T1">12%</text:span> in Ελλάδα and<text:s text:c="2"/>日本.<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Unaudited.</text:p></text:note-body></text:note></text:p>` +
		`<text:p text:style-name="Standard">See <text:a xlink:type="simple" xlink:href="https://example.com/dash">the dashboard</text:a>.</text:p>` +
		`<text:h text:style-name="Heading_20_2" text:outline-level="2">Actions</text:h>` +
		`<text:list xml:id="list1" text:style-name="L1"><text:list-item><text:p text:style-name="P1">Call leads</text:p><text:list><text:list-item><text:p text:style-name="P1">Tokyo first</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p text:style-name="P1">Send offers</text:p></text:list-item></text:list>` +
		`<text:list text:style-name="L2"><text:list-item><text:p>Draft</text:p></text:list-item><text:list-item><text:p>Review</text:p></text:list-item></text:list>` +
		`<table:table table:name="Table1" table:style-name="Table1"><table:table-column table:style-name="Table1.A" table:number-columns-repeated="3"/><table:table-header-rows><table:table-row><table:table-cell office:value-type="string"><text:p>Region</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Q1</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>Q2</text:p></table:table-cell></table:table-row></table:table-header-rows>` +
		`<table:table-row><table:table-cell office:value-type="string"><text:p>North</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>1,204</text:p></table:table-cell><table:table-cell office:value-type="string"><text:p>1,310</text:p></table:table-cell></table:table-row></table:table>` +
		`<text:p text:style-name="Standard">End<text:tab/>of report.</text:p></office:text></office:body>`
	return odfPackage(t, "application/vnd.oasis.opendocument.text", body, `<style:style style:name="Standard" style:family="paragraph" style:class="text"/>`)
}

// deckOdp is a presentation as LibreOffice Impress writes one: a title
// page, an outline with nested items, speaker notes with their page
// thumbnail, a page number frame, and a hidden page.
func deckOdp(t testing.TB) []byte {
	frame := func(class, inner string) string {
		return `<draw:frame presentation:style-name="pr1" draw:layer="layout" svg:width="25.199cm" svg:height="2.629cm" svg:x="1.4cm" svg:y="0.628cm" presentation:class="` + class + `"><draw:text-box>` + inner + `</draw:text-box></draw:frame>`
	}
	body := `<office:automatic-styles><style:style style:name="dp1" style:family="drawing-page"><style:drawing-page-properties presentation:background-visible="true"/></style:style><style:style style:name="dp2" style:family="drawing-page"><style:drawing-page-properties presentation:visibility="hidden"/></style:style><text:list-style style:name="L2"><text:list-level-style-bullet text:level="1" text:bullet-char="●"/></text:list-style></office:automatic-styles>` +
		`<office:body><office:presentation>` +
		`<draw:page draw:name="page1" draw:style-name="dp1" draw:master-page-name="Default" presentation:presentation-page-layout-name="AL1T0">` + frame("title", `<text:p>Launch plan</text:p>`) + frame("subtitle", `<text:p>Σχέδιο 2024</text:p>`) +
		`<presentation:notes draw:style-name="dp1"><draw:page-thumbnail draw:style-name="gr1" presentation:class="page" draw:page-number="1"/>` + frame("notes", `<text:p>Smile.</text:p>`) + `</presentation:notes></draw:page>` +
		`<draw:page draw:name="page2" draw:style-name="dp1" draw:master-page-name="Default">` + frame("outline", `<text:list text:style-name="L2"><text:list-item><text:p>Hire two people</text:p><text:list><text:list-item><text:p>One in Tokyo</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>Open the shop</text:p></text:list-item></text:list>`) + frame("title", `<text:p>Steps</text:p>`) + frame("page-number", `<text:p><text:page-number>2</text:page-number></text:p>`) + `</draw:page>` +
		`<draw:page draw:name="page3" draw:style-name="dp2" draw:master-page-name="Default">` + frame("title", `<text:p>Old ideas</text:p>`) + `</draw:page>` +
		`</office:presentation></office:body>`
	return odfPackage(t, "application/vnd.oasis.opendocument.presentation", body, "")
}

func TestOpenDocument(t *testing.T) {
	tests := []struct {
		name, file string
		data       []byte
		want, desc string
	}{
		{
			name: "ods", file: "leads.ods", data: leadsOds(t),
			want: `# Sheet "Leads": 5 rows × 6 columns, cells A1:F5
# Merged cells (each value is in the range's first cell): A1:C1
"Leads, 2024",,,,,
Name,Amount,Signed,Double,At,Paid
山田  太郎,"1,204.50",2024-03-01,2409,13:45:00,TRUE
Ελένη,-7,2024-03-02T18:00:00,,,
Ελένη,-7,2024-03-02T18:00:00,,,

# Sheet "Old" (hidden): 1 row × 1 column, cells B1:B1
kept
`,
			desc: `2 sheets: "Leads" (5 rows × 6 columns), "Old" (hidden, 1 row × 1 column)`,
		},
		{
			name: "odt", file: "report.odt", data: reportOdt(t),
			want: strings.Join([]string{
				"# Quarterly report",
				"",
				"Sales rose 12% in Ελλάδα and  日本.[^1]",
				"",
				"See [the dashboard](https://example.com/dash).",
				"",
				"## Actions",
				"",
				"- Call leads",
				"  - Tokyo first",
				"- Send offers",
				"1. Draft",
				"2. Review",
				"",
				"| Region | Q1 | Q2 |",
				"| --- | --- | --- |",
				"| North | 1,204 | 1,310 |",
				"",
				"End\tof report.",
				"",
				"[^1]: Unaudited.",
				"",
			}, "\n"),
			desc: "11 paragraphs, 1 table",
		},
		{
			name: "odp", file: "deck.odp", data: deckOdp(t),
			want: strings.Join([]string{
				"# Slide 1: Launch plan",
				"",
				"Σχέδιο 2024",
				"",
				"## Notes",
				"",
				"Smile.",
				"",
				"# Slide 2: Steps",
				"",
				"- Hire two people",
				"  - One in Tokyo",
				"- Open the shop",
				"",
				"# Slide 3 (hidden): Old ideas",
				"",
			}, "\n"),
			desc: "3 slides, 1 hidden",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.file, Data: tt.data})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tt.name || res.Text != tt.want || res.Description != tt.desc {
				t.Errorf("Convert(%s) = kind %q, description %q, text\n%s\nwant kind %q, description %q, text\n%s", tt.file, res.Kind, res.Description, res.Text, tt.name, tt.desc, tt.want)
			}
		})
	}
}
