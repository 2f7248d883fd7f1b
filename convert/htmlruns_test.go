package convert_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keel-go/keel/convert"
)

// TestHTMLLongRuns converts pages whose text runs are longer than the
// tokenizer reads in one token: the text must come out whole (words,
// character references and multi-byte characters never broken where
// the runs are split) and markup after a long run must still be read;
// a paragraph longer than the token bound is cut at the cap with the
// rest counted, as a long paragraph of any format is, not refused.
func TestHTMLLongRuns(t *testing.T) {
	const mib = 1 << 20
	spaced := strings.Repeat("Käse&amp;Brot ", 3*mib/14) // splits at spaces
	word := strings.Repeat("äb&amp;", 9*mib/8)           // one word: splits between characters
	huge := strings.Repeat("a", 999) + " "
	tests := []struct {
		name     string
		page     string
		maxChars int
		want     []string // the text starts with want[0] and holds the rest
		cut      bool
	}{
		{"3 MiB paragraph of words", "<!DOCTYPE html><p>" + spaced + `</p><p><a href="https://example.com/x">after QZ</a></p>`, 4 * mib,
			[]string{strings.TrimSpace(strings.ReplaceAll(spaced, "&amp;", "&")) + "\n", "[after QZ](https://example.com/x)"}, false},
		{"9 MiB word", "<!DOCTYPE html><p>" + word + "</p><h2>after QZ</h2>", 10 * mib,
			[]string{strings.ReplaceAll(word, "&amp;", "&") + "\n", "## after QZ\n"}, false},
		{"20 MB paragraph with default limits", "<!DOCTYPE html><p>" + strings.Repeat(huge, 20_000) + "</p>", 0,
			[]string{strings.Repeat(huge, 100)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().WithLimits(convert.Limits{MaxChars: tt.maxChars}).Convert(context.Background(), convert.Input{Name: "page.html", Data: []byte(tt.page)})
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			if !strings.HasPrefix(res.Text, tt.want[0]) {
				i := 0
				for i < min(len(res.Text), len(tt.want[0])) && res.Text[i] == tt.want[0][i] {
					i++
				}
				t.Errorf("Convert: the text differs from the page's at byte %d: %q, want %q", i, res.Text[i:min(len(res.Text), i+40)], tt.want[0][i:min(len(tt.want[0]), i+40)])
			}
			for _, w := range tt.want[1:] {
				if !strings.Contains(res.Text, w) {
					t.Errorf("Convert: the text lacks %q after the long run", w)
				}
			}
			if !utf8.ValidString(res.Text) || strings.ContainsRune(res.Text, utf8.RuneError) || strings.Contains(res.Text, "wbr") {
				t.Errorf("Convert: the text holds a broken character or the break marker")
			}
			if res.Omitted.Any() != tt.cut {
				t.Errorf("Convert: Omitted = %+v; want something left out: %v", res.Omitted, tt.cut)
			}
			if tt.cut && res.Omitted.Chars+utf8.RuneCountInString(res.Text) < 20_000_000 {
				t.Errorf("Convert: %d characters kept and %d counted as left out; want the whole paragraph's 20,000,000", utf8.RuneCountInString(res.Text), res.Omitted.Chars)
			}
		})
	}
}
