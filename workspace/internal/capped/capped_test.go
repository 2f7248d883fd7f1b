package capped_test

import (
	"testing"

	"github.com/keel-go/keel/workspace/internal/capped"
)

func TestBuffer(t *testing.T) {
	cases := []struct {
		name      string
		max       int
		writes    []string
		want      string
		truncated bool
	}{
		{"nothing", 4, nil, "", false},
		{"under", 4, []string{"ab"}, "ab", false},
		{"exactly", 4, []string{"ab", "cd"}, "abcd", false},
		{"over in one", 4, []string{"abcdef"}, "abcd", true},
		{"over across", 4, []string{"abc", "def", "g"}, "abcd", true},
		{"zero", 0, []string{"a"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &capped.Buffer{Max: c.max}
			for _, w := range c.writes {
				n, err := b.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if got := b.Bytes(); got == nil || string(got) != c.want {
				t.Errorf("Bytes() = %q (nil %v), want %q", got, got == nil, c.want)
			}
			if b.Truncated != c.truncated {
				t.Errorf("Truncated = %v, want %v", b.Truncated, c.truncated)
			}
		})
	}
}
