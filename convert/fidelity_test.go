package convert_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/keel-go/keel/convert"
)

// chartWorkbook is a workbook as excelize writes one: a sheet of sales
// by region, a bar chart of it with a title, and a comment on a cell.
func chartWorkbook(t testing.TB) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetSheetName("Sheet1", "Sales"))
	for i, row := range [][]any{{"Region", "Q1", "Q2"}, {"North", 120, 135}, {"South", 98, 102}} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		must(f.SetSheetRow("Sales", cell, &row))
	}
	must(f.AddChart("Sales", "E2", &excelize.Chart{
		Type:  excelize.Col,
		Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: "Sales by region QZCHART"}}},
		Series: []excelize.ChartSeries{
			{Name: "Sales!$B$1", Categories: "Sales!$A$2:$A$3", Values: "Sales!$B$2:$B$3"},
			{Name: "Sales!$C$1", Categories: "Sales!$A$2:$A$3", Values: "Sales!$C$2:$C$3"},
		},
	}))
	must(f.AddComment("Sales", excelize.Comment{Cell: "B2", Author: "Bo", Text: "Includes returns QZXCOMMENT"}))
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCommentsAreOptIn converts the same files with and without
// comments: they appear only when asked for, as notes in documents and
// under the sheet's heading in workbooks.
func TestCommentsAreOptIn(t *testing.T) {
	book := chartWorkbook(t)
	tests := []struct {
		name, file string
		data       []byte
		comment    string
	}{
		{"xlsx by excelize", "sales.xlsx", book, "# Comment B2: Bo: Includes returns QZXCOMMENT\n"},
		{"docx by LibreOffice", "report.docx", corpusFile(t, "report.docx"), "[^c1]: Bo Chen: Check this number QZCOMMENT."},
		{"odt by LibreOffice", "report.odt", corpusFile(t, "report.odt"), "[^c1]: Bo Chen: Check this number QZCOMMENT."},
		{"rtf by LibreOffice", "report.rtf", corpusFile(t, "report.rtf"), "[^c1]: Bo Chen: Check this number QZCOMMENT."},
		{"doc by LibreOffice", "report.doc", corpusFile(t, "report.doc"), "[^c1]: Check this number QZCOMMENT."},
		{"xlsx by LibreOffice", "leads.xlsx", corpusFile(t, "leads.xlsx"), "QZSHEETCOMMENT"},
		{"ods by LibreOffice", "leads.ods", corpusFile(t, "leads.ods"), "# Comment B3: Bo: Met in March QZSHEETCOMMENT\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, on := range []bool{false, true} {
				res, err := convert.Default().WithOptions(convert.Options{Comments: on}).Convert(context.Background(), convert.Input{Name: tt.file, Data: tt.data})
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Contains(res.Text, tt.comment); got != on {
					t.Errorf("Convert(%s) with comments %v: text holds %q = %v; want %v\n%s", tt.file, on, tt.comment, got, on, res.Text)
				}
			}
		})
	}
}

// TestChartAsTable reads the chart of a workbook as excelize writes it
// (the series' ranges, no cached values) and as LibreOffice saves it
// again (values cached, as Excel caches them): a table of the values
// where the part holds them, the ranges otherwise.
func TestChartAsTable(t *testing.T) {
	tests := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"excelize", "sales.xlsx", chartWorkbook(t), "# Chart: Sales by region QZCHART (series: Sales!$B$1 from Sales!$B$2:$B$3; Sales!$C$1 from Sales!$C$2:$C$3)\n"},
		{"LibreOffice", "charts.xlsx", corpusFile(t, "charts.xlsx"), "# Chart: Sales by region QZCHART\nCategory,Q1,Q2\nNorth QZCHARTCAT,120,135\nSouth,98,102\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.file, Data: tt.data})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(res.Text, tt.want) {
				t.Errorf("Convert(%s) text\n%s\nwant it to end with\n%s", tt.file, res.Text, tt.want)
			}
		})
	}
}
