package convert

import (
	"strconv"
	"strings"
)

// thousands writes n with commas between groups of three digits:
// 1204 → "1,204".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}

// plural writes a count and its noun: "1 row", "1,204 rows".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok {
		return thousands(n) + " " + stem + "ies"
	}
	return thousands(n) + " " + noun + "s"
}
