package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/memory"
)

func TestFilesConvert(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		on       bool
		maxChars int
	}{
		{"on by default", "agents:\n  - id: a\n", true, convert.DefaultMaxChars},
		{"off for all", "files: {convert: false}\nagents:\n  - id: a\n", false, 0},
		{"off for all, on for the agent", "files: {convert: false}\nagents:\n  - id: a\n    files: {convert: true}\n", true, convert.DefaultMaxChars},
		{"off for the agent", "agents:\n  - id: a\n    files: {convert: false}\n", false, 0},
		{"a cap for all", "files: {maxChars: 5000}\nagents:\n  - id: a\n", true, 5000},
		{"the agent's cap wins", "files: {maxChars: 5000}\nagents:\n  - id: a\n    files: {maxChars: 700}\n", true, 700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tt.yaml), "keel.yaml")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := build(t, f, config.BuildOptions{DefaultModel: "google/gemini-2.5-flash"})
			conv := b.Agents[0].Config().Files.Converters
			if (conv != nil) != tt.on {
				t.Fatalf("Got(converters) = %v; want on %v", conv, tt.on)
			}
			if !tt.on {
				return
			}
			reg, ok := conv.(*convert.Registry)
			if !ok || reg.Limits().MaxChars != tt.maxChars {
				t.Errorf("Got(converters) = %T with cap %d; want keel's with cap %d", conv, reg.Limits().MaxChars, tt.maxChars)
			}
		})
	}
}

func TestFilesErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"files: {maxChars: -1}\nagents:\n  - id: a\n", "keel.yaml:1: files.maxChars: -1: use a positive number"},
		{"agents:\n  - id: a\n    files: {maxChars: -3}\n", "keel.yaml:3: agents[0].files.maxChars: -3"},
		{"agents:\n  - id: a\n    files: {convrt: false}\n", `unknown field "convrt"; the fields here are: convert, maxChars`},
		{"refusals: {expiry: -1h}\nagents:\n  - id: a\n", "keel.yaml:1: refusals.expiry: -1h0m0s: use a positive duration"},
		{"refusals: {remembr: false}\nagents:\n  - id: a\n", `unknown field "remembr"; the fields here are: remember, expiry`},
	}
	for _, tt := range tests {
		_, err := config.Parse([]byte(tt.yaml), "keel.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Got(Parse(%q)) = %v; want an error holding %q", tt.yaml, err, tt.want)
		}
	}
}

func TestRefusalsSettings(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		mem    memory.Store
		on     bool
		expiry time.Duration
	}{
		{"on by default, kept by the store", "agents:\n  - id: a\n  - id: b\n", memory.NewInMemory(), true, 24 * time.Hour},
		{"a shorter expiry", "refusals: {expiry: 90m}\nagents:\n  - id: a\n", memory.NewInMemory(), true, 90 * time.Minute},
		{"off", "refusals: {remember: false}\nagents:\n  - id: a\n", memory.NewInMemory(), false, 0},
		{"no store", "agents:\n  - id: a\n", nil, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tt.yaml), "keel.yaml")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := build(t, f, config.BuildOptions{DefaultModel: "google/gemini-2.5-flash", Memory: tt.mem})
			if (b.Refusals != nil) != tt.on {
				t.Fatalf("Got(refusals) = %v; want on %v", b.Refusals, tt.on)
			}
			for _, a := range b.Agents {
				if a.Config().Files.Refusals != b.Refusals {
					t.Errorf("Got(agent %s's refusals) = %p; want the shared %p", a.ID(), a.Config().Files.Refusals, b.Refusals)
				}
			}
			if tt.on && b.Refusals.Expiry() != tt.expiry {
				t.Errorf("Got(expiry) = %v; want %v", b.Refusals.Expiry(), tt.expiry)
			}
		})
	}
}
