package officetest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/officetest"
)

// TestFilesConvert checks that the files made here are what keel's
// converters read: the sheet's cells, and the document's heading,
// paragraphs and table.
func TestFilesConvert(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"leads.xlsx", officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}}),
			[]string{`# Sheet "Leads": 2 rows × 2 columns`, "Name,City\nAda,Berlin"}},
		{"memo.docx", officetest.Document(t, "Memo", []string{"First point."}, [][]string{{"Item", "Qty"}, {"Pens", "3"}}),
			[]string{"# Memo", "First point.", "| Item | Qty |", "| Pens | 3 |"}},
	}
	for _, tt := range tests {
		res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.name, Data: tt.data})
		if err != nil {
			t.Fatalf("Got(convert %s) error %v; want text", tt.name, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("Got(text of %s) = %q; want it to hold %q", tt.name, res.Text, w)
			}
		}
	}
}
