package convert_test

import (
	"context"
	"fmt"
	"os"

	"github.com/keel-go/keel/convert"
)

func ExamplePDF() {
	// A two-page report as LibreOffice writes it (testdata/pdf/README.md
	// says how it was made): a table on the first page, two columns on
	// the second.
	data, err := os.ReadFile("testdata/pdf/report.pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "report.pdf", Data: data})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("[Text of report.pdf — %s, as %s]\n", res.Description, res.As)
	fmt.Print(res.Text)
	// Output:
	// [Text of report.pdf — 2 pages, as plain text]
	// --- page 1 ---
	// HEADERMARK Quarterly report
	// Quarterly report PAGEONEMARK
	// The northern region grew by twelve percent while the southern region held steady
	// through the quarter.
	// 東京の売上は前年比で十二パーセント増加しました。CJKMARK 北京 서울
	// Region	Revenue	Growth
	// North	1,204	12%
	// South TABLEMARK	980	0%
	//
	// FOOTERMARK confidential
	//
	// --- page 2 ---
	// HEADERMARK Quarterly report
	// Second page PAGETWOMARK begins with two columns below.
	// LEFTSTART The left column opens the
	// section and carries on with words about
	// harvests, rivers, markets and the long
	// road between the towns of the valley,
	// where traders met each spring to
	// exchange grain, cloth and news of the
	// mountains beyond. The river flooded
	// twice that year and the bridges were
	// rebuilt by the guilds. LEFTEND
	//
	// RIGHTSTART The right column follows
	// with its own account of ships, harbours,
	// lighthouses and storms along the coast,
	// where the fishing fleets waited for the
	// wind to turn before setting out again
	// toward the islands in the west. Their
	// catches were sold in the morning
	// markets. RIGHTEND
	//
	// After the columns AFTERCOLS the text runs across the page again.
	//
	// FOOTERMARK confidential
}
