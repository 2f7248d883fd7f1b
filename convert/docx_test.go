package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// wordRun is a run of text as Word writes one, with revision IDs and
// properties around the text.
func wordRun(text string) string {
	return `<w:r w:rsidR="00A51C2E"><w:rPr><w:lang w:val="en-GB"/></w:rPr><w:t xml:space="preserve">` + text + `</w:t></w:r>`
}

func wordPara(style, body string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p w:rsidR="00A51C2E" w:rsidRDefault="00A51C2E">` + ppr + body + `</w:p>`
}

func wordItem(numID, ilvl, text string) string {
	return `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="` + ilvl + `"/><w:numId w:val="` + numID + `"/></w:numPr></w:pPr>` + wordRun(text) + `</w:p>`
}

func wordCell(text, props string) string {
	return `<w:tc><w:tcPr><w:tcW w:w="3005" w:type="dxa"/>` + props + `</w:tcPr>` + wordPara("", wordRun(text)) + `</w:tc>`
}

// reportDocx is a Word document built from the parts Word writes: styles
// with localised names, numbering definitions, a hyperlink relationship,
// and a body with a title, headings, runs split by revision IDs, lists
// of two kinds and two levels, a table with a merged cell, a tracked
// deletion and insertion, a page field, and a text box written twice
// (DrawingML and its VML fallback).
func reportDocx(t testing.TB) []byte {
	body := wordPara("Title", wordRun("Quarterly report")) +
		wordPara("Heading1", wordRun("Summary")) +
		wordPara("", wordRun("Sales rose ")+`<w:r><w:rPr><w:b/></w:rPr><w:t>12%</w:t></w:r>`+wordRun(" in Ελλάδα and 日本.")) +
		wordPara("", wordRun("See ")+`<w:hyperlink r:id="rId9" w:history="1"><w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr><w:t>the dashboard</w:t></w:r></w:hyperlink>`+wordRun(".")) +
		wordPara("Heading2", wordRun("Actions")) +
		wordItem("1", "0", "Call leads") +
		wordItem("1", "1", "Tokyo first") +
		wordItem("1", "0", "Send offers") +
		wordItem("2", "0", "Draft") +
		wordItem("2", "0", "Review") +
		`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid><w:gridCol w:w="3005"/><w:gridCol w:w="3005"/><w:gridCol w:w="3006"/></w:tblGrid>` +
		`<w:tr>` + wordCell("Region", "") + wordCell("Q1", "") + wordCell("Q2", "") + `</w:tr>` +
		`<w:tr>` + wordCell("North | East", "") + wordCell("1,204", "") + wordCell("1,310", "") + `</w:tr>` +
		`<w:tr>` + wordCell("Total", `<w:gridSpan w:val="2"/>`) + wordCell("2,514", "") + `</w:tr></w:tbl>` +
		wordPara("", `<w:del w:id="1" w:author="Ann" w:date="2024-03-01T10:00:00Z"><w:r><w:delText>Old figures. </w:delText></w:r></w:del><w:ins w:id="2" w:author="Ann" w:date="2024-03-01T10:00:00Z">`+wordRun("New figures.")+`</w:ins>`) +
		wordPara("", wordRun("Page ")+`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`) +
		wordPara("", `<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="1" name="Text Box 1"/><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp><wps:txbx><w:txbxContent>`+wordPara("", wordRun("Boxed note"))+`</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>`+wordPara("", wordRun("Boxed note"))+`</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>`) +
		`<w:sectPr w:rsidR="00A51C2E"><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>`
	document := xmlDecl + `<w:document ` + wordNamespaces + `><w:body>` + body + `</w:body></w:document>`
	styles := xmlDecl + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">` +
		`<w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="en-GB"/></w:rPr></w:rPrDefault></w:docDefaults>` +
		`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:keepNext/><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:pPr><w:ind w:left="720"/></w:pPr></w:style>` +
		`<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/></w:style></w:styles>`
	numbering := xmlDecl + `<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
		`<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="hybridMultilevel"/><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="·"/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl></w:abstractNum>` +
		`<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>` +
		`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`
	docRels := xmlDecl + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/dash?q=1&amp;r=2" TargetMode="External"/></Relationships>`
	types := xmlDecl + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/></Types>`
	return makeZip(t,
		part{"[Content_Types].xml", types},
		part{"_rels/.rels", packageRels("word/document.xml")},
		part{"word/document.xml", document},
		part{"word/_rels/document.xml.rels", docRels},
		part{"word/styles.xml", styles},
		part{"word/numbering.xml", numbering},
		part{"word/settings.xml", xmlDecl + `<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>`},
		part{"docProps/app.xml", xmlDecl + `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>1</Pages></Properties>`},
	)
}

func TestDOCX(t *testing.T) {
	res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "report.docx", Data: reportDocx(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"# Quarterly report",
		"",
		"# Summary",
		"",
		"Sales rose 12% in Ελλάδα and 日本.",
		"",
		"See [the dashboard](https://example.com/dash?q=1&r=2).",
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
		`| North \| East | 1,204 | 1,310 |`,
		"| Total |  | 2,514 |",
		"",
		"New figures.",
		"",
		"Page 1",
		"",
		"Boxed note",
		"",
	}, "\n")
	if res.Text != want {
		t.Errorf("Convert(report.docx).Text =\n%s\nwant\n%s", res.Text, want)
	}
	if res.Kind != "docx" || res.As != "Markdown" || res.Description != "13 paragraphs, 1 table" {
		t.Errorf("Convert(report.docx) = kind %q as %q description %q; want docx, Markdown, \"13 paragraphs, 1 table\"", res.Kind, res.As, res.Description)
	}
}
