package config_test

import (
	"os"
	"path/filepath"
	"slices"
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
		comments bool
	}{
		{"on by default", "agents:\n  - id: a\n", true, convert.DefaultMaxChars, false},
		{"off for all", "files: {convert: false}\nagents:\n  - id: a\n", false, 0, false},
		{"off for all, on for the agent", "files: {convert: false}\nagents:\n  - id: a\n    files: {convert: true}\n", true, convert.DefaultMaxChars, false},
		{"off for the agent", "agents:\n  - id: a\n    files: {convert: false}\n", false, 0, false},
		{"a cap for all", "files: {maxChars: 5000}\nagents:\n  - id: a\n", true, 5000, false},
		{"the agent's cap wins", "files: {maxChars: 5000}\nagents:\n  - id: a\n    files: {maxChars: 700}\n", true, 700, false},
		{"comments for all", "files: {comments: true}\nagents:\n  - id: a\n", true, convert.DefaultMaxChars, true},
		{"comments for all but the agent", "files: {comments: true}\nagents:\n  - id: a\n    files: {comments: false}\n", true, convert.DefaultMaxChars, false},
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
			if got := reg.Options().Comments; got != tt.comments {
				t.Errorf("Got(converters) with comments %v; want %v", got, tt.comments)
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

// wrapped is a store that hides every capability of the one it wraps but
// says it wraps it, as an observing wrapper does.
type wrapped struct{ memory.Store }

func (w wrapped) Unwrap() memory.Store { return w.Store }

func TestFilesProviderFiles(t *testing.T) {
	mem := memory.NewInMemory()
	tests := []struct {
		name  string
		yaml  string
		store memory.Store
		on    bool
	}{
		{"on by default, kept by the store", "agents:\n  - id: a\n", mem, true},
		{"found through a wrapper", "agents:\n  - id: a\n", wrapped{mem}, true},
		{"off for all", "files: {providerFiles: false}\nagents:\n  - id: a\n", mem, false},
		{"off for all, on for the agent", "files: {providerFiles: false}\nagents:\n  - id: a\n    files: {providerFiles: true}\n", mem, true},
		{"off for the agent", "agents:\n  - id: a\n    files: {providerFiles: false}\n", mem, false},
		{"no store", "agents:\n  - id: a\n", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tt.yaml), "keel.yaml")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := build(t, f, config.BuildOptions{DefaultModel: "google/gemini-2.5-flash", Memory: tt.store})
			got := b.Agents[0].Config().Files.ProviderFiles
			if tt.on && got != memory.ProviderFiles(mem) {
				t.Errorf("Got(provider files) = %v; want the store's", got)
			}
			if !tt.on && got != nil {
				t.Errorf("Got(provider files) = %v; want none", got)
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

// TestFilesLibreOffice checks that the converters hold LibreOffice when
// soffice is on the PATH, and not when it is not: a stand-in script is
// enough, since only its presence decides.
func TestFilesLibreOffice(t *testing.T) {
	with := t.TempDir()
	if err := os.WriteFile(filepath.Join(with, "soffice"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want bool
	}{{with, true}, {t.TempDir(), false}} {
		t.Setenv("PATH", tt.path)
		f, err := config.Parse([]byte("agents:\n  - id: a\n"), "keel.yaml")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := build(t, f, config.BuildOptions{DefaultModel: "google/gemini-2.5-flash"})
		reg := b.Agents[0].Config().Files.Converters.(*convert.Registry)
		got := slices.ContainsFunc(reg.Converters(), func(c convert.Converter) bool { return c.Format().Kind == "libreoffice" })
		if got != tt.want {
			t.Errorf("with PATH=%s, the converters hold LibreOffice: %v; want %v", tt.path, got, tt.want)
		}
	}
}
