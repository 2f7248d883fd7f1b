package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// liftStrings and restore together must decode every body exactly as
// encoding/json alone does.
func TestLiftStringsKeepsMeaning(t *testing.T) {
	big := strings.Repeat("QUJD", 2000)             // 8000 bytes of base64
	bigEsc := strings.Repeat(`a\"b\\`, 1000)        // escapes: left to encoding/json
	bigUni := strings.Repeat("é", 3000)             // not ASCII: left to encoding/json
	bigCtl := strings.Repeat("a", 5000) + "\\u0001" // escaped control
	tests := []string{
		`{"messages":"hi"}`,
		`{"messages":[{"role":"user","content":[{"type":"file","data":"data:application/pdf;base64,` + big + `","mediaType":"application/pdf"}]}]}`,
		`{"messages":"` + big + `","memory":{"thread":"t","resource":"r"}}`,
		`{"messages":[{"role":"user","content":"` + bigEsc + `"},{"role":"user","content":"` + big + `"}]}`,
		`{"messages":"` + bigUni + `"}`,
		`{"messages":"` + bigCtl + `"}`,
		`{"messages":{"` + big + `":"` + big + `"}}`,
		`{"messages":["` + big + `","` + big + `x"]}`,
		`{"messages":"\\\\` + big + `\\\\"}`,
		`{"messages":"` + strings.Repeat("z", liftMin-1) + `"}`,
	}
	for i, body := range tests {
		var want any
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		lb, l := liftStrings([]byte(body))
		var got any
		if err := json.Unmarshal(lb, &got); err != nil {
			t.Fatalf("Got(case %d lifted body) = %.200q: %v", i, lb, err)
		}
		got = l.restore(got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Got(case %d) differs from encoding/json alone", i)
		}
		if strings.Contains(body, big) && !strings.Contains(body, `\\`) && len(lb) > len(body)/2 {
			t.Errorf("Got(case %d lifted size) = %d of %d; want the long strings out", i, len(lb), len(body))
		}
	}
}

func TestLiftStringsMalformed(t *testing.T) {
	for _, body := range []string{`{"messages":"` + strings.Repeat("a", 5000), `{"a":"\`, `"`, ``} {
		lb, l := liftStrings([]byte(body))
		var v any
		if err := json.Unmarshal(lb, &v); err == nil {
			t.Errorf("Got(lifted %.40q) = valid JSON; want the error encoding/json gives", body)
		}
		_ = l
	}
}

func TestPrintableASCII(t *testing.T) {
	tests := map[string]bool{
		"":                                 true,
		"hello world, this is fine ~":      true,
		"seven\x7f bytes then more":        false,
		"tab\there and there after":        false,
		"caf\xc3\xa9 and a long tail here": false,
		"abcdefghijklmnop\x1f":             false,
		"\x00abcdefg":                      false,
		"0123456789ABCDEF~ ":               true,
	}
	for s, want := range tests {
		if got := printableASCII([]byte(s)); got != want {
			t.Errorf("Got(printableASCII(%q)) = %v; want %v", s, got, want)
		}
	}
}

// FuzzLiftStrings checks that lifting never changes what a body means:
// bodies made of a fuzzed piece repeated past liftMin, in a fuzzed frame.
func FuzzLiftStrings(f *testing.F) {
	f.Add(`{"messages":"`, "QUJD", `"}`)
	f.Add(`["`, `a\"`, `",1]`)
	f.Add(`{"k":"`, `\\`, `"}`)
	f.Add(`{"`, "x", `":"y"}`)
	f.Add(`"`, "é", `"`)
	f.Add(`{"a":"`, "\x7f", `"}`)
	f.Fuzz(func(t *testing.T, pre, piece, post string) {
		if piece == "" || len(pre)+len(post) > 256 {
			return
		}
		body := pre + strings.Repeat(piece, liftMin/len(piece)+1) + post
		var want any
		wantErr := json.Unmarshal([]byte(body), &want)
		lb, l := liftStrings([]byte(body))
		var got any
		gotErr := json.Unmarshal(lb, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("Got(lifted error) = %v; want %v, for %.100q", gotErr, wantErr, body)
		}
		if wantErr == nil && !reflect.DeepEqual(l.restore(got), want) {
			t.Fatalf("Got(lifted value) differs for %.100q", body)
		}
	})
}
