package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel/config"
)

// FuzzParse checks that any keel.yaml either gives a configuration or a
// *config.Error saying what is wrong, never a panic or another error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		full,
		"agents:\n  - id: a\n    model: google/gemini-2.5-flash\n",
		"agents:\n  - id: a\n    modle: x/y\n",
		"agents:\n  - id: a\n    maxSteps: many\n",
		"agents:\n  - id: a\n    sandbox: {resolution: per-thread, limits: {memory: 1GiB}}\n",
		"server:\n  maxBodySize: 9223372036854775808\nagents:\n  - id: a\n",
		"agents: &a [*a]\n", "agents:\n  - id: a\n  - id: a\n", "", "---\n", "\t", "agents: {}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := config.Parse(data, "keel.yaml")
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Message == "" || !strings.Contains(err.Error(), "keel.yaml") {
				t.Fatalf("Got(Parse(%q)) error %#v; want a *config.Error naming the file", data, err)
			}
			if file != nil {
				t.Fatalf("Got(Parse(%q)) = a file and an error; want one of them", data)
			}
			return
		}
		if file == nil {
			t.Fatalf("Got(Parse(%q)) = nil, nil; want a file or an error", data)
		}
	})
}

// FuzzParseByteSize checks that a size is never negative, and that one it
// accepts is written back the same.
func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"1GiB", "512 MiB", "1.5GB", "1048576", "0", "-1", "8EiB", "9223372036854775807", "9223372036854775808", "8388608TiB", "1e3", ".", "NaN", " 2 kB "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := config.ParseByteSize(s)
		if err != nil {
			if n != 0 || !strings.Contains(err.Error(), "is not a size") {
				t.Fatalf("Got(ParseByteSize(%q)) = %d, %v; want 0 and an error saying what to write", s, n, err)
			}
			return
		}
		if n < 0 {
			t.Fatalf("Got(ParseByteSize(%q)) = %d; want no negative size", s, n)
		}
	})
}
