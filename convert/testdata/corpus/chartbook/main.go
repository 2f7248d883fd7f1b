// Command chartbook writes charts.xlsx, a workbook with a chart and a
// comment as excelize writes it, for make.sh to pass through LibreOffice
// (which writes the chart's cached values, as Excel does).
package main

import (
	"log"

	"github.com/xuri/excelize/v2"
)

func main() {
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	must(f.SetSheetName("Sheet1", "Sales"))
	for i, row := range [][]any{{"Region", "Q1", "Q2"}, {"North QZCHARTCAT", 120, 135}, {"South", 98, 102}} {
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
	must(f.SaveAs("charts.xlsx"))
}
