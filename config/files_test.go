package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
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

func TestFilesDescribeWith(t *testing.T) {
	yaml := "files: {describeWith: google/gemini-2.5-flash}\nagents:\n  - id: a\n  - id: b\n  - id: c\n    files: {convert: false}\n"
	f, err := config.Parse([]byte(yaml), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	store := memory.NewInMemory()
	b, asked := build(t, f, config.BuildOptions{DefaultModel: "openai-compatible/m", Memory: store})
	a, ok := b.Agents[0].Config().Files.DescribeWith.(*processor.ModelDescriber)
	if !ok || a.ModelID() != "keeltest/scripted" || a.Store != memory.FileDescriptions(store) || a.Images == nil {
		t.Fatalf("Got(agent a's describer) = %#v; want the vision model, the store, the image converter", b.Agents[0].Config().Files.DescribeWith)
	}
	if b.Agents[1].Config().Files.DescribeWith != processor.ImageDescriber(a) {
		t.Errorf("Got(agent b's describer) = %p; want the one of agent a, %p: one per model", b.Agents[1].Config().Files.DescribeWith, a)
	}
	if d := b.Agents[2].Config().Files.DescribeWith; d != nil {
		t.Errorf("Got(agent c's describer, conversion off) = %#v; want none", d)
	}
	if n := strings.Count(strings.Join(asked, " "), "google/gemini-2.5-flash"); n != 1 {
		t.Errorf("Got(models resolved) = %q; want google/gemini-2.5-flash once", asked)
	}

	for _, bad := range []string{"gemini", "/m", "google/"} {
		_, err := config.Parse([]byte("files: {describeWith: \""+bad+"\"}\nagents:\n  - id: a\n"), "keel.yaml")
		if err == nil || !strings.Contains(err.Error(), "keel.yaml:1: files.describeWith") || !strings.Contains(err.Error(), "provider/model") {
			t.Errorf("Got(Parse(describeWith %q)) = %v; want an error at its line asking for provider/model", bad, err)
		}
	}
}
