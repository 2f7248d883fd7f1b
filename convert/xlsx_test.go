package convert_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/keel-go/keel/convert"
)

// leadsWorkbook writes a workbook as a user's spreadsheet program would:
// a title merged over the header, shared strings in three scripts, a
// formula with its cached value, dates, times and a date-time in built-in
// and custom formats, a styled but empty cell past the data, a hidden
// sheet and an empty one.
func leadsWorkbook(t testing.TB) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetSheetName("Sheet1", "Leads"))
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	must(err)
	date, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	must(err)
	custom := "yyyy/mm/dd hh:mm"
	stamp, err := f.NewStyle(&excelize.Style{CustomNumFmt: &custom})
	must(err)
	clock, err := f.NewStyle(&excelize.Style{NumFmt: 20})
	must(err)
	percent, err := f.NewStyle(&excelize.Style{NumFmt: 10})
	must(err)

	must(f.SetCellValue("Leads", "A1", "Leads, spring 2024"))
	must(f.MergeCell("Leads", "A1", "F1"))
	must(f.SetSheetRow("Leads", "A2", &[]any{"Name", "City", "Amount", "Signed", "Double", "Share"}))
	must(f.SetCellStyle("Leads", "A2", "F2", bold))
	must(f.SetSheetRow("Leads", "A3", &[]any{"山田 太郎", "東京", 1204.5, 45352, 2409, 0.25}))
	must(f.SetSheetRow("Leads", "A4", &[]any{"Νίκος Παπαδόπουλος", "Αθήνα", 310, 45353.75, 620, 0.5}))
	must(f.SetSheetRow("Leads", "A5", &[]any{`Smith, "Jo"`, "Zürich", -7, 45354.5, -14, 1}))
	must(f.SetCellFormula("Leads", "E3", "C3*2"))
	must(f.SetCellFormula("Leads", "E4", "C4*2"))
	must(f.SetCellFormula("Leads", "E5", "C5*2"))
	must(f.SetCellStyle("Leads", "D3", "D3", date))
	must(f.SetCellStyle("Leads", "D4", "D4", stamp))
	must(f.SetCellStyle("Leads", "D5", "D5", clock))
	must(f.SetCellStyle("Leads", "F3", "F5", percent))
	must(f.SetCellStyle("Leads", "Z40", "Z40", bold)) // styled, empty: not data

	_, err = f.NewSheet("Old")
	must(err)
	must(f.SetSheetRow("Old", "B2", &[]any{"kept", true}))
	must(f.SetSheetRow("Old", "B3", &[]any{"as is", false}))
	must(f.SetSheetVisible("Old", false))
	_, err = f.NewSheet("Empty")
	must(err)

	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestXLSX(t *testing.T) {
	data := leadsWorkbook(t)
	res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "leads.xlsx", MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	want := `# Sheet "Leads": 5 rows × 6 columns, cells A1:F5
# Merged cells (each value is in the range's first cell): A1:F1
"Leads, spring 2024",,,,,
Name,City,Amount,Signed,Double,Share
山田 太郎,東京,1204.5,2024-03-01,2409,25.00%
Νίκος Παπαδόπουλος,Αθήνα,310,2024-03-02T18:00:00,620,50.00%
"Smith, ""Jo""",Zürich,-7,12:00:00,-14,100.00%

# Sheet "Old" (hidden): 2 rows × 2 columns, cells B2:C3
kept,TRUE
as is,FALSE

# Sheet "Empty": empty
`
	if res.Text != want {
		t.Errorf("Convert(leads.xlsx).Text =\n%s\nwant\n%s", res.Text, want)
	}
	if res.Kind != "xlsx" || res.As != "CSV" || res.Omitted.Any() {
		t.Errorf("Convert(leads.xlsx) = kind %q as %q omitted %+v; want xlsx as CSV, nothing omitted", res.Kind, res.As, res.Omitted)
	}
	wantDesc := `3 sheets: "Leads" (5 rows × 6 columns), "Old" (hidden, 2 rows × 2 columns), "Empty" (0 rows × 0 columns)`
	if res.Description != wantDesc {
		t.Errorf("Description = %q; want %q", res.Description, wantDesc)
	}
	wantParts := []convert.Part{
		{Kind: "sheet", Name: "Leads", Rows: 5, Columns: 6, Merged: 1},
		{Kind: "sheet", Name: "Old", Rows: 2, Columns: 2, Hidden: true},
		{Kind: "sheet", Name: "Empty"},
	}
	if len(res.Parts) != len(wantParts) {
		t.Fatalf("Parts = %+v; want %+v", res.Parts, wantParts)
	}
	for i := range wantParts {
		if res.Parts[i] != wantParts[i] {
			t.Errorf("Parts[%d] = %+v; want %+v", i, res.Parts[i], wantParts[i])
		}
	}
	_ = time.Now
}
