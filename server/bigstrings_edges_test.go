package server

import (
	"strconv"
	"strings"
	"testing"
)

// TestLiftStringsLiftsExactly pins which strings are taken out: a lift
// that stops (or a plain string kept in the body) decodes the same, so only
// the count and the strings lifted show the speed path is taken.
func TestLiftStringsLiftsExactly(t *testing.T) {
	edge := strings.Repeat("z", liftMin)
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"exactly the minimum", `{"a":"` + edge + `"}`, []string{edge}},
		{"one byte short", `{"a":"` + edge[1:] + `"}`, nil},
		{"two in order", `["` + edge + `","x","` + edge + `y"]`, []string{edge, edge + "y"}},
		{"an escape inside", `{"a":"` + edge + `\"q"}`, nil},
		{"an escaped backslash at the end", `{"a":"` + edge + `\\","b":"` + edge + `"}`, []string{edge}},
		{"not ASCII", `{"a":"` + edge + `é"}`, nil},
		{"printable edges in the tail", `{"a":"` + edge + ` ~"}`, []string{edge + " ~"}},
		{"a DEL byte", `{"a":"` + edge + "\x7f" + `"}`, nil},
		{"a key", `{"` + edge + `":1}`, []string{edge}},
		{"after a short string with an escaped quote", `{"s":"a\"b","a":"` + edge + `"}`, []string{edge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lb, l := liftStrings([]byte(tt.body))
			var got []string
			if l != nil {
				got = l.strs
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("Got(lifted) = %d strings; want %d (%q…)", len(got), len(tt.want), firstBytes(tt.want))
			}
			if l == nil && string(lb) != tt.body {
				t.Errorf("Got(body) changed with nothing lifted")
			}
			for i := range got {
				ph := liftTag[1:] + strconv.Itoa(i)
				if !strings.Contains(string(lb), `\u0000`+ph) {
					t.Errorf("Got(body) has no placeholder %d", i)
				}
			}
		})
	}
}

// TestStringEnd pins where a string ends and whether it held a backslash,
// with escaped quotes and runs of backslashes before the closing quote.
func TestStringEnd(t *testing.T) {
	tests := []struct {
		in        string // the content after the opening quote
		end       int
		wantPlain bool
	}{
		{`abc"`, 3, true},
		{`"`, 0, true},
		{`a\"b"`, 4, false},
		{`a\\"`, 3, false},
		{`a\\\"b"`, 6, false},
		{`\\\\"x"`, 4, false},
		{`abc`, -1, false},
		{`a\"`, -1, false},
	}
	for _, tt := range tests {
		b := []byte(`"` + tt.in)
		end, plain := stringEnd(b, 1)
		want := tt.end
		if want >= 0 {
			want++ // the opening quote
		}
		if end != want || (end >= 0 && plain != tt.wantPlain) {
			t.Errorf("Got(stringEnd(%q)) = %d, %v; want %d, %v", tt.in, end, plain, want, tt.wantPlain)
		}
	}
}

func firstBytes(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0][:8]
}
