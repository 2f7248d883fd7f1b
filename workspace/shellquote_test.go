package workspace_test

import (
	"os/exec"
	"testing"

	"github.com/keel-go/keel/workspace"
)

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "''"},
		{"plain", "'plain'"},
		{"it's", `'it'\''s'`},
		{"''", `''\'''\'''`},
		{"$(id) `id` ; rm", "'$(id) `id` ; rm'"},
	}
	for _, tt := range tests {
		if got := workspace.ShellQuote(tt.in); got != tt.want {
			t.Errorf("Got(ShellQuote(%q)) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestShellQuoteRoundTrip has a real shell read quoted words back.
func TestShellQuoteRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh to read quoted words back: %v", err)
	}
	all := make([]byte, 0, 255)
	for b := 1; b < 256; b++ {
		all = append(all, byte(b))
	}
	words := []string{
		"",
		"plain",
		"it's",
		"'",
		"'''",
		`\'`,
		`"double" \"escaped\"`,
		"$HOME ${HOME} $(touch pwned) `touch pwned`",
		"; rm -rf / && echo pwned || true | cat > /dev/null &",
		"*?[a-z]{a,b}~ -n -e",
		"new\nline\ttab\rcr",
		"\xff\xfe invalid UTF-8 \xc3",
		"ünïcödé 日本語 🙂",
		string(all),
	}
	for _, w := range words {
		out, err := exec.Command(sh, "-c", "printf '%s' "+workspace.ShellQuote(w)).Output()
		if err != nil {
			t.Fatalf("Got(sh error for %q) = %v; want none", w, err)
		}
		if string(out) != w {
			t.Errorf("Got(sh reading ShellQuote(%q)) = %q; want %q", w, out, w)
		}
	}
}
