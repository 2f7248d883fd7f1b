package convert_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// TestStylesAndStringsCaps checks what happens past
// [convert.Limits].MaxStyles and MaxStrings, on files just past them: a
// workbook's numbers whose format was not read are shown as stored and
// the sheet's heading says so, a document's paragraph whose style was
// not read is a plain paragraph, and a workbook with more shared strings
// than allowed is refused with a [*convert.LimitError].
func TestStylesAndStringsCaps(t *testing.T) {
	workbook := func(styles, strs string) []byte {
		parts := workbookParts(sheetHead + `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>0.5</v></c><c r="C1" s="2"><v>0.25</v></c></row>` + sheetTail)
		parts[3] = part{"xl/_rels/workbook.xml.rels", rels(relItem("rId1", "worksheet", "worksheets/sheet1.xml"), relItem("rId2", "sharedStrings", "sharedStrings.xml"), relItem("rId3", "styles", "styles.xml"))}
		parts = append(parts, part{"xl/sharedStrings.xml", xmlDecl + `<sst ` + sml + `>` + strs + `</sst>`}, part{"xl/styles.xml", xmlDecl + `<styleSheet ` + sml + `>` + styles + `</styleSheet>`})
		return makeZip(t, parts...)
	}
	const (
		formats = `<numFmts><numFmt numFmtId="164" formatCode="0.0"/><numFmt numFmtId="165" formatCode="0.000"/></numFmts>`
		xfs     = `<cellXfs><xf numFmtId="0"/><xf numFmtId="10"/><xf numFmtId="164"/></cellXfs>`
		note    = "# Some numbers are shown as stored"
	)
	heading := func(style string) []byte {
		styles := xmlDecl + `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
			`<w:style w:type="paragraph" w:styleId="A"><w:name w:val="Normal"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="B"><w:name w:val="Quote"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="H"><w:name w:val="heading 1"/></w:style></w:styles>`
		return makeZip(t, part{"_rels/.rels", packageRels("word/document.xml")},
			part{"word/document.xml", xmlDecl + `<w:document ` + wordNamespaces + `><w:body>` + wordPara(style, wordRun("Title")) + `</w:body></w:document>`},
			part{"word/_rels/document.xml.rels", rels(relItem("rId1", "styles", "styles.xml"))},
			part{"word/styles.xml", styles})
	}
	for _, tt := range []struct {
		name  string
		in    convert.Input
		lim   convert.Limits
		want  string // in the text
		avoid string // not in it
		limit string // the LimitError's limit, if one is wanted
	}{
		{"all formats read", convert.Input{Name: "a.xlsx", Data: workbook(formats+xfs, `<si><t>a</t></si>`)}, convert.Limits{MaxStyles: 3}, "a,50.00%,0.3 [0.25]\n", note, ""},
		{"number formats past the cap", convert.Input{Name: "a.xlsx", Data: workbook(formats+xfs, `<si><t>a</t></si>`)}, convert.Limits{MaxStyles: 1}, "a,0.5,0.25\n", "", ""},
		{"cell formats past the cap", convert.Input{Name: "a.xlsx", Data: workbook(formats+xfs, `<si><t>a</t></si>`)}, convert.Limits{MaxStyles: 2}, "a,50.00%,0.25\n", "", ""},
		{"heading style read", convert.Input{Name: "a.docx", Data: heading("H")}, convert.Limits{MaxStyles: 3}, "# Title", "", ""},
		{"heading style past the cap", convert.Input{Name: "a.docx", Data: heading("H")}, convert.Limits{MaxStyles: 2}, "Title", "#", ""},
		{"shared strings within the cap", convert.Input{Name: "a.xlsx", Data: workbook("", `<si><t>a</t></si><si><t>b</t></si>`)}, convert.Limits{MaxStrings: 2}, "a,0.5,0.25", "", ""},
		{"shared strings past the cap", convert.Input{Name: "a.xlsx", Data: workbook("", `<si><t>a</t></si><si><t>b</t></si><si/>`)}, convert.Limits{MaxStrings: 2}, "", "", "shared strings"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().WithLimits(tt.lim).Convert(context.Background(), tt.in)
			var le *convert.LimitError
			switch {
			case tt.limit != "":
				if !errors.As(err, &le) || le.Limit != tt.limit || le.Max != int64(tt.lim.MaxStrings) {
					t.Errorf("Convert(%s) error = %v; want a *convert.LimitError of %d %s", tt.in.Name, err, tt.lim.MaxStrings, tt.limit)
				}
				return
			case err != nil:
				t.Fatalf("Convert(%s): %v", tt.in.Name, err)
			}
			if !strings.Contains(res.Text, tt.want) || tt.avoid != "" && strings.Contains(res.Text, tt.avoid) {
				t.Errorf("Convert(%s) = %q; want it to hold %q and not %q", tt.in.Name, res.Text, tt.want, tt.avoid)
			}
			// The note comes exactly when a number's format was not read.
			cut := tt.in.Name == "a.xlsx" && tt.lim.MaxStyles > 0 && tt.lim.MaxStyles < 3
			if strings.Contains(res.Text, note) != cut {
				t.Errorf("Convert(%s) = %q; want the note that numbers are shown as stored: %v", tt.in.Name, res.Text, cut)
			}
		})
	}
}

// TestSharedStringsPastTheFirstBuffer reads shared strings past the
// 4 MiB a table's buffer starts at, in an xlsx and an xls: the strings
// read before and after it, and the one that straddles it, are whole;
// and within a MaxStringBytes of 4 MiB, the string that would straddle
// it does not fit.
func TestSharedStringsPastTheFirstBuffer(t *testing.T) {
	const n = 5000 // 5 MB of strings
	word := func(i int) string { return strings.Repeat("w", 1000) + strconv.Itoa(i) }
	refs := []int{0, 4177, 4178, 4999} // 4178 begins before 4 MiB and ends after
	var sst strings.Builder
	for i := range n {
		sst.WriteString("<si><t>" + word(i) + "</t></si>")
	}
	var cells strings.Builder
	for row, i := range refs {
		fmt.Fprintf(&cells, `<row r="%d"><c r="A%d" t="s"><v>%d</v></c></row>`, row+1, row+1, i)
	}
	parts := workbookParts(sheetHead + cells.String() + sheetTail)
	parts[3] = part{"xl/_rels/workbook.xml.rels", rels(relItem("rId1", "worksheet", "worksheets/sheet1.xml"), relItem("rId2", "sharedStrings", "sharedStrings.xml"))}
	parts = append(parts, part{"xl/sharedStrings.xml", xmlDecl + `<sst ` + sml + `>` + sst.String() + `</sst>`})
	latin1 := func(i int) []byte {
		w := word(i)
		return append([]byte{byte(len(w)), byte(len(w) >> 8), 0}, w...)
	}
	for _, in := range []convert.Input{
		{Name: "s.xlsx", Data: makeZip(t, parts...)},
		{Name: "s.xls", Data: biffSSTWorkbook(t, n, latin1, refs)},
	} {
		res, err := convert.Default().WithLimits(convert.Limits{MaxChars: 1 << 20}).Convert(context.Background(), in)
		if err != nil {
			t.Fatalf("Convert(%s): %v", in.Name, err)
		}
		if want := word(0) + "\n" + word(4177) + "\n" + word(4178) + "\n" + word(4999) + "\n"; !strings.HasSuffix(res.Text, want) {
			t.Errorf("Convert(%s) = %q; want it to end with the strings %v", in.Name, res.Text[:min(len(res.Text), 200)], refs)
		}
		// (4 more bytes for each string: 4178 of them take 4,210,326.)
		_, err = convert.Default().WithLimits(convert.Limits{MaxStringBytes: 4 << 20}).Convert(context.Background(), in)
		var le *convert.LimitError
		if !errors.As(err, &le) || le.Max != 4<<20 {
			t.Errorf("Convert(%s) with MaxStringBytes 4 MiB: error %v; want a *convert.LimitError of 4 MiB", in.Name, err)
		}
	}
}
