package processor

import "testing"

// TestCleanNameDropsEscapesWithEdgeBytes checks escape sequences whose
// bytes sit at the edges of ECMA-48's ranges: an intermediate byte of
// 0x20 or 0x2f, a final byte of 0x30, intermediates running to the end of
// the name. Each goes whole.
func TestCleanNameDropsEscapesWithEdgeBytes(t *testing.T) {
	for _, in := range []string{"a\x1b Fb", "a\x1b/Xb", "a\x1b0b", "ab\x1b "} {
		if got := cleanName(in); got != "ab" {
			t.Errorf("Got(cleanName(%q)) = %q; want \"ab\"", in, got)
		}
	}
}
