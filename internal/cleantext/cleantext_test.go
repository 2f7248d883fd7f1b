package cleantext_test

import (
	"fmt"
	"testing"

	"github.com/keel-go/keel/internal/cleantext"
)

func TestLine(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"", 10, ""},
		{"leads.xlsx", 200, "leads.xlsx"},
		{"a\x1b]0;pwned\x07b", 200, "ab"},                 // a window title, ended by BEL
		{"a\x1b]8;;http://x\x1b\\b", 200, "ab"},           // a hyperlink, ended by ESC \
		{"a\x1b[2Jb\x1b[31mc", 200, "abc"},                // clear screen, colour
		{"a\u009b2Jb", 200, "ab"},                         // the C1 CSI
		{"a\x1b]0;never ended", 200, "a"},                 // open: runs to the end
		{"a\x1b[", 200, "a"},                              // open CSI
		{"line\none\r\ttab\x7f\u0085", 200, "lineonetab"}, // controls, C0 and C1
		{"a\x1b Fb", 200, "ab"},                           // intermediate 0x20
		{"a\x1b/Xb", 200, "ab"},                           // intermediate 0x2f
		{"a\x1b0b", 200, "ab"},                            // final byte 0x30
		{"ab\x1b ", 200, "ab"},                            // intermediates to the end
		{"naïve café", 4, "naïv"},                         // max counts characters
		{"a\xffb", 200, "a\ufffdb"},                       // invalid UTF-8 is shown as such
	}
	for _, tt := range tests {
		if got := cleantext.Line(tt.in, tt.max); got != tt.want {
			t.Errorf("Line(%q, %d) = %q; want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestShort(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 10, ""},
		{"  two\n  lines\t", 80, "two lines"},
		{"a \x1b[31mred\x1b[0m word", 80, "a red word"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"naïve café", 5, "naïv…"},
	}
	for _, tt := range tests {
		if got := cleantext.Short(tt.in, tt.n); got != tt.want {
			t.Errorf("Short(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// FuzzLine: whatever the text, the line holds no ESC, no C0 or C1
// control, and at most max characters.
func FuzzLine(f *testing.F) {
	f.Add("a\x1b]0;pwned\x07b", 10)
	f.Add("a\u009b2Jb\r\n", 3)
	f.Fuzz(func(t *testing.T, in string, max int) {
		max = max%300 + 300
		got := cleantext.Line(in, max)
		n := 0
		for _, r := range got {
			n++
			if r <= 0x1f || r >= 0x7f && r <= 0x9f {
				t.Fatalf("Line(%q) = %q holds control %U", in, got, r)
			}
		}
		if n > max {
			t.Fatalf("Line(%q, %d) has %d characters", in, max, n)
		}
	})
}

func ExampleLine() {
	fmt.Printf("%q\n", cleantext.Line("report\x1b]0;owned\x07.pdf\r\n", 200))
	// Output: "report.pdf"
}
