package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/keel-go/keel/config"
)

// TestReadmeKeelYAML: every keel.yaml the README shows is valid, and
// warns of nothing.
func TestReadmeKeelYAML(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```yaml\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("Got(README) without a yaml block; want its keel.yaml example")
	}
	for _, b := range blocks {
		b, _, _ = strings.Cut(b, "```")
		f, err := config.Parse([]byte(b), "README.md")
		if err != nil {
			t.Errorf("Got(Parse of README's keel.yaml) error %v; want none\n%s", err, b)
			continue
		}
		if w := f.Warnings(); len(w) != 0 {
			t.Errorf("Got(warnings of README's keel.yaml) = %q; want none", w)
		}
	}
}
