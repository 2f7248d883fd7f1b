package processor

import (
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// TestLabelCountsOnlyUnitsLeftOut checks the last line of a cut text: the
// units left out are named only when there are some, never "(0 rows)",
// and counts that are lower bounds say so.
func TestLabelCountsOnlyUnitsLeftOut(t *testing.T) {
	for _, tc := range []struct {
		omitted convert.Omission
		want    string
	}{
		{convert.Omission{Chars: 5, Units: 2, Unit: "rows"}, "5 more characters (2 rows) were left out."},
		{convert.Omission{Chars: 5, Units: 0, Unit: "rows"}, "5 more characters were left out."},
		{convert.Omission{Chars: 1, Units: 1, Unit: "rows", AtLeast: true}, "at least 1 more character (at least 1 row) were left out."},
	} {
		c := conversion{res: &convert.Result{Text: "a,b\n", Omitted: tc.omitted}}
		if got := c.label("a.csv", ""); !strings.Contains(got, "[The text stops here: "+tc.want) {
			t.Errorf("Got(label with %+v left out) = %q; want it to say %q", tc.omitted, got, tc.want)
		}
	}
}
