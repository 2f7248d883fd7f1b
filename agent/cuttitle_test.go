package agent_test

import (
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
)

// TestDefaultTitleCutsAtTheBoundary checks titles cut at a space that
// falls exactly where the 80 characters end, and the punctuation kept or
// trimmed before the ellipsis: a closing parenthesis or quotation mark
// stays, a comma goes.
func TestDefaultTitleCutsAtTheBoundary(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct{ name, text, want string }{
		{"space at the 80th character", pad(79) + " tail words", pad(79) + "…"},
		{"parenthesis kept", pad(69) + " (ab note) tail words", pad(69) + " (ab note)…"},
		{"quotation mark kept", pad(69) + ` "ab note" tail words`, pad(69) + ` "ab note"…`},
		{"comma trimmed", pad(69) + " ab, note, tail words", pad(69) + " ab, note…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := agent.DefaultTitle([]keel.Message{keel.UserText(tc.text)}); got != tc.want {
				t.Errorf("Got(DefaultTitle(%q)) = %q; want %q", tc.text, got, tc.want)
			}
		})
	}
}
