package convert_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// roundedLine is the line under a sheet's heading when its numbers'
// formats round some of them.
const roundedLine = "# Numbers are shown as formatted; where the format rounds one, its stored value follows in [brackets]\n"

// corpusFile returns a file of testdata/corpus, written by LibreOffice
// from the sources there (testdata/corpus/make.sh).
func corpusFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCorpus converts every file of the corpus LibreOffice wrote and
// checks that the text holds what the file shows (each passage has a
// marker, QZ…) and not what it hides: hidden text, deleted changes,
// hidden slides' and sheets' contents unmarked, comments unless asked.
func TestCorpus(t *testing.T) {
	report := []string{"# Quarterly report QZH1\n", "## Actions QZH2\n", "QZBODY", "QZLINK", "New figure QZINSERTED added.", "- Call leads QZITEM1\n  - Tokyo first QZITEM2\n", "1. Draft QZSTEP1\n2. Review QZSTEP2\n", "| North QZCELL | 1,204 | 1,310 |", "End of report QZEND.", "[^1]: Unaudited figures QZFOOTNOTE.", "[^e1]: Source: the ledger QZENDNOTE.", "Ελλάδα and 日本"}
	hidden := []string{"QZHIDDEN", "QZDELETED", "QZCOMMENT"}
	sheet := []string{`"Leads, spring QZSHEETTITLE"`, `山田 太郎 QZNAME1,東京,"$1,500.00",34.7% [0.3471],"1,234,567",3.14 [3.14159],2024-03-01,"$3,000.00"`, "Νίκος Παπαδόπουλος QZNAME2,Αθήνα,-$250.50,25.0%,42,2.00,2024-03-02,-$501.00", "# Sheet \"Old\" (hidden)", "Archived QZHIDDENSHEET", `Total QZTOTAL,"$1,249.50"`, "# Merged cells (each value is in the range's first cell): A1:C1", roundedLine}
	deck := []string{"# Slide 1: Launch plan QZSLIDE1\n", "Σχέδιο 2024 QZSUBTITLE", "QZSLIDE2", "Hire two people QZBULLET1", "One in Tokyo QZBULLET2", "Tokyo QZSLIDECELL", "## Notes\n\nSmile and greet QZNOTES1.", "Mention the budget QZNOTEBOX.", "# Slide 3 (hidden)", "QZHIDDENSLIDE"}
	memo := []string{"# Memo to staff QZWEBH1\n", "## Changes QZWEBH2\n", "QZWEBBODY", "- New badges QZWEBITEM\n", "| Monday QZWEBCELL | 9–18 |", "Questions: Ελένη, 東京 office QZWEBEND."}
	tests := []struct {
		file      string
		want, not []string
	}{
		{"report.docx", append(report, "![Sales chart QZALT: Bars of sales by region QZALTDESC](image1.png)", "See [the dashboard QZLINK](https://example.com/dashboard)."), hidden},
		{"report.odt", append(report, "Sales chart QZALT: Bars of sales by region QZALTDESC", "See [the dashboard QZLINK](https://example.com/dashboard)."), hidden},
		{"report.doc", append(report, "See [the dashboard QZLINK](https://example.com/dashboard)."), hidden},
		{"report.rtf", []string{"Quarterly report QZH1", "Actions QZH2", "QZBODY", "QZLINK", "QZINSERTED", "QZITEM1", "QZSTEP1", "North QZCELL", "QZEND", "QZFOOTNOTE", "QZENDNOTE"}, hidden},
		{"leads.xlsx", sheet, []string{"QZSHEETCOMMENT"}},
		{"leads.ods", sheet, []string{"QZSHEETCOMMENT"}},
		{"leads.xls", sheet, []string{"QZSHEETCOMMENT"}},
		{"deck.pptx", append(deck, "# Slide 2: Steps QZSLIDE2\n", "- Hire two people QZBULLET1\n  - One in Tokyo QZBULLET2\n", "![Round red logo QZSLIDEALTDESC](image1.png)"), nil},
		{"deck.odp", append(deck, "# Slide 2: Steps QZSLIDE2\n", "- Hire two people QZBULLET1\n  - One in Tokyo QZBULLET2\n", "Company logo QZSLIDEALT: Round red logo QZSLIDEALTDESC"), nil},
		{"deck.ppt", deck, nil},
		{"memo-web.odt", memo, []string{"QZSCRIPT"}},
		{"memo.doc", memo, []string{"QZSCRIPT"}},
		{"memo.html", append(memo, "The office opens at **nine** and closes at *six* & the café at four QZWEBBODY.", "- Parking on level [two](https://example.com/parking)\n"), []string{"QZSCRIPT", "color"}},
		// LibreOffice's EPUB export writes headings as styled paragraphs
		// and leaves out a table's first row; what it wrote is read.
		{"report.epub", []string{"Quarterly report QZH1", "QZBODY", "[the dashboard QZLINK](https://example.com/dashboard)", "Call leads QZITEM1", "| North QZCELL | 1,204 | 1,310 |", "End of report QZEND.", "Unaudited figures QZFOOTNOTE."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.file, Data: corpusFile(t, tt.file)})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("Convert(%s) text lacks %q:\n%s", tt.file, w, res.Text)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(res.Text, n) {
					t.Errorf("Convert(%s) text holds %q, which the file hides:\n%s", tt.file, n, res.Text)
				}
			}
		})
	}
}
