package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

const pptNamespaces = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// pptShape is a shape as PowerPoint writes one: non-visual properties
// with the placeholder (if any), shape properties, and a text body.
func pptShape(id, ph string, paras ...string) string {
	nv := `<p:nvPr/>`
	if ph != "" {
		nv = `<p:nvPr>` + ph + `</p:nvPr>`
	}
	return `<p:sp><p:nvSpPr><p:cNvPr id="` + id + `" name="Shape ` + id + `"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>` + nv + `</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>` + strings.Join(paras, "") + `</p:txBody></p:sp>`
}

func pptPara(lvl, text string) string {
	ppr := ""
	if lvl != "" {
		ppr = `<a:pPr lvl="` + lvl + `"/>`
	}
	return `<a:p>` + ppr + `<a:r><a:rPr lang="en-GB" dirty="0"/><a:t>` + text + `</a:t></a:r></a:p>`
}

func pptSlide(attrs, shapes string) string {
	return xmlDecl + `<p:sld ` + pptNamespaces + attrs + `><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` + shapes + `</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`
}

func pptTable(rows ...[]string) string {
	var b strings.Builder
	b.WriteString(`<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="9" name="Table 8"/><p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblPr firstRow="1" bandRow="1"/><a:tblGrid><a:gridCol w="4064000"/><a:gridCol w="4064000"/></a:tblGrid>`)
	for _, r := range rows {
		b.WriteString(`<a:tr h="370840">`)
		for _, c := range r {
			b.WriteString(`<a:tc><a:txBody><a:bodyPr/><a:lstStyle/>` + pptPara("", c) + `</a:txBody><a:tcPr/></a:tc>`)
		}
		b.WriteString(`</a:tr>`)
	}
	b.WriteString(`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
	return b.String()
}

func rels(items ...string) string {
	return xmlDecl + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + strings.Join(items, "") + `</Relationships>`
}

func relItem(id, typ, target string) string {
	return `<Relationship Id="` + id + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/` + typ + `" Target="` + target + `"/>`
}

// deckPptx is a presentation built from the parts PowerPoint writes:
// slides reordered after they were made (slide3.xml shown second), a
// title slide, a slide whose title shape comes after its body, bullets
// on two levels, a text box, a table, a slide number, speaker notes, and
// a hidden slide.
func deckPptx(t testing.TB) []byte {
	presentation := xmlDecl + `<p:presentation ` + pptNamespaces + ` saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:notesMasterIdLst><p:notesMasterId r:id="rId6"/></p:notesMasterIdLst><p:sldIdLst><p:sldId id="256" r:id="rId2"/><p:sldId id="258" r:id="rId4"/><p:sldId id="257" r:id="rId3"/></p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>`
	presRels := rels(
		relItem("rId1", "slideMaster", "slideMasters/slideMaster1.xml"),
		relItem("rId2", "slide", "slides/slide1.xml"),
		relItem("rId3", "slide", "slides/slide2.xml"),
		relItem("rId4", "slide", "slides/slide3.xml"),
		relItem("rId6", "notesMaster", "notesMasters/notesMaster1.xml"),
	)
	slide1 := pptSlide("", pptShape("2", `<p:ph type="ctrTitle"/>`, pptPara("", "Launch plan"))+
		pptShape("3", `<p:ph type="subTitle" idx="1"/>`, pptPara("", "Σχέδιο 2024 — 計画")))
	slide3 := pptSlide("", pptShape("3", `<p:ph idx="1"/>`, pptPara("", "Hire two people"), pptPara("1", "One in Tokyo"), pptPara("", "Open the shop"))+
		pptShape("2", `<p:ph type="title"/>`, pptPara("", "Steps"))+
		pptShape("4", "", pptPara("", "Budget below"))+
		pptTable([]string{"Item", "Cost"}, []string{"Rent", "1,000"})+
		pptShape("5", `<p:ph type="sldNum" sz="quarter" idx="12"/>`, `<a:p><a:fld id="{B6F15528}" type="slidenum"><a:t>2</a:t></a:fld></a:p>`))
	slide2 := pptSlide(` show="0"`, pptShape("2", `<p:ph type="title"/>`, pptPara("", "Old ideas")))
	notes := xmlDecl + `<p:notes ` + pptNamespaces + `><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` +
		pptShape("2", `<p:ph type="sldImg"/>`) +
		pptShape("3", `<p:ph type="body" idx="1"/>`, pptPara("", "Start with the budget."), pptPara("", "Then ask for questions.")) +
		pptShape("4", `<p:ph type="sldNum" sz="quarter" idx="5"/>`, pptPara("", "2")) +
		`</p:spTree></p:cSld></p:notes>`
	types := xmlDecl + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/></Types>`
	layout := relItem("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml")
	return makeZip(t,
		part{"[Content_Types].xml", types},
		part{"_rels/.rels", packageRels("ppt/presentation.xml")},
		part{"ppt/presentation.xml", presentation},
		part{"ppt/_rels/presentation.xml.rels", presRels},
		part{"ppt/slides/slide1.xml", slide1},
		part{"ppt/slides/_rels/slide1.xml.rels", rels(layout)},
		part{"ppt/slides/slide2.xml", slide2},
		part{"ppt/slides/_rels/slide2.xml.rels", rels(layout)},
		part{"ppt/slides/slide3.xml", slide3},
		part{"ppt/slides/_rels/slide3.xml.rels", rels(layout, relItem("rId2", "notesSlide", "../notesSlides/notesSlide1.xml"))},
		part{"ppt/notesSlides/notesSlide1.xml", notes},
		part{"ppt/notesSlides/_rels/notesSlide1.xml.rels", rels(relItem("rId1", "slide", "../slides/slide3.xml"))},
		part{"ppt/slideLayouts/slideLayout1.xml", pptSlide("", "")},
		part{"ppt/slideMasters/slideMaster1.xml", pptSlide("", "")},
	)
}

func TestPPTX(t *testing.T) {
	res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "deck.pptx", MediaType: "application/vnd.openxmlformats-officedocument.presentationml.presentation", Data: deckPptx(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"# Slide 1: Launch plan",
		"",
		"Σχέδιο 2024 — 計画",
		"",
		"# Slide 2: Steps",
		"",
		"- Hire two people",
		"  - One in Tokyo",
		"- Open the shop",
		"",
		"Budget below",
		"",
		"| Item | Cost |",
		"| --- | --- |",
		"| Rent | 1,000 |",
		"",
		"## Notes",
		"",
		"Start with the budget.",
		"",
		"Then ask for questions.",
		"",
		"# Slide 3 (hidden): Old ideas",
		"",
	}, "\n")
	if res.Text != want {
		t.Errorf("Convert(deck.pptx).Text =\n%s\nwant\n%s", res.Text, want)
	}
	if res.Description != "3 slides, 1 hidden" || len(res.Parts) != 3 || res.Parts[1] != (convert.Part{Kind: "slide", Name: "Steps"}) || !res.Parts[2].Hidden {
		t.Errorf("Convert(deck.pptx) = description %q, parts %+v; want \"3 slides, 1 hidden\", Steps second, the third hidden", res.Description, res.Parts)
	}
}
