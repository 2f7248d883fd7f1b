package config_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/keeltest"
)

func TestParseModels(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       config.Models
	}{
		{"one", "model: google/gemini-2.5-flash", config.Models{{Model: "google/gemini-2.5-flash"}}},
		{"a flow list", "model: [google/gemini-2.5-flash, openai/gpt-4o-mini]",
			config.Models{{Model: "google/gemini-2.5-flash"}, {Model: "openai/gpt-4o-mini"}}},
		{"entries with retries", "model:\n      - model: google/gemini-2.5-pro\n        maxRetries: 1\n      - openai/gpt-4o-mini",
			config.Models{{Model: "google/gemini-2.5-pro", MaxRetries: 1}, {Model: "openai/gpt-4o-mini"}}},
		{"none", "name: x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte("agents:\n  - id: a\n    "+tt.yaml+"\n"), "keel.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Agents[0].Model; fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Got(models) = %+v; want %+v", got, tt.want)
			}
		})
	}
}

func TestParseModelsMistakes(t *testing.T) {
	tests := []struct {
		yaml string
		line int
		want string
	}{
		{"model: []", 3, "the list of models is empty"},
		{"model:\n      - modle: google/gemini-2.5-pro", 4, `unknown field "modle"; the fields here are: model, maxRetries`},
		{"model:\n      - maxRetries: 2", 4, "each model of the list needs its model"},
		{"model: [google/gemini-2.5-flash, gpt-4o]", 3, `agents[0].model[1]: "gpt-4o": write provider/model`},
		{"model: {model: x/y}", 3, "write a model string such as google/gemini-2.5-flash, or a list of them"},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			_, err := config.Parse([]byte("agents:\n  - id: a\n    "+tt.yaml+"\n"), "keel.yaml")
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Got(Parse) = %v; want line %d saying %q", err, tt.line, tt.want)
			}
		})
	}
}

func TestBuildModels(t *testing.T) {
	f, err := config.Parse([]byte(`agents:
  - id: a
    model:
      - model: google/gemini-2.5-pro
        maxRetries: 1
      - openai/gpt-4o-mini
      - anthropic/claude-sonnet-4-5
    fallbackOnCallerErrors: true
`), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := build(t, f, config.BuildOptions{ResolveModel: func(s string) (keel.Model, error) {
		if strings.HasPrefix(s, "openai/") {
			return nil, fmt.Errorf("%w: set OPENAI_API_KEY", config.ErrModelUnavailable)
		}
		return keeltest.NewModel(keeltest.Reply{Text: s}), nil
	}})
	cfg := b.Agents[0].Config()
	if len(cfg.Models) != 2 || cfg.Models[0].MaxRetries != 1 || !cfg.FallbackOnCallerErrors {
		t.Fatalf("Got(models) = %+v, caller errors %v; want the two usable ones, the first with 1 retry", cfg.Models, cfg.FallbackOnCallerErrors)
	}
	joined := strings.Join(b.Warnings, "\n")
	if !strings.Contains(joined, "agent a cannot use openai/gpt-4o-mini: config: model unavailable: set OPENAI_API_KEY") {
		t.Errorf("Got(warnings) = %q; want the model left out named", joined)
	}
}

func TestFilesFetch(t *testing.T) {
	f, err := config.Parse([]byte(`files:
  fetch:
    allowHosts: [files.example.com, "*.cdn.example"]
    maxSize: 5MiB
    timeout: 10s
    keepCopy: true
    resolve: {files.example.com: 127.0.0.1}
agents:
  - id: a
  - id: b
    files:
      fetch: {allowHosts: [other.example]}
`), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fc := f.Files.Fetch
	if fc == nil || len(fc.AllowHosts) != 2 || fc.MaxSize != 5<<20 || fc.Timeout.Seconds() != 10 || !fc.KeepCopy || fc.Resolve["files.example.com"] != "127.0.0.1" {
		t.Fatalf("Got(files.fetch) = %+v; want every setting read", fc)
	}
	b, _ := build(t, f, config.BuildOptions{DefaultModel: "x/y"})
	a, bb := b.Agents[0].Config(), b.Agents[1].Config()
	if a.Links == nil || a.Links.MaxSize() != 5<<20 || !a.KeepLinkCopies {
		t.Errorf("Got(agent a's downloads) = %+v, keep %v; want the file's", a.Links, a.KeepLinkCopies)
	}
	if bb.Links == nil || bb.Links.Check("https://files.example.com/a.pdf") == nil || bb.Links.Check("https://other.example/a.pdf") != nil || bb.KeepLinkCopies {
		t.Errorf("Got(agent b's downloads) = %+v; want its own list only", bb.Links)
	}
	none, _ := build(t, config.Default(), config.BuildOptions{DefaultModel: "x/y"})
	if none.Agents[0].Config().Links != nil {
		t.Errorf("Got(downloads without files.fetch) = set; want none")
	}
}

func TestFilesFetchMistakes(t *testing.T) {
	tests := []struct {
		yaml string
		line int
		want string
	}{
		{"files:\n  fetch:\n    allowHosts: [\"http://x\"]\n", 3, `files.fetch.allowHosts: "http://x": write a host name`},
		{"files:\n  fetch:\n    resolve: {a.test: localhost}\n", 3, `files.fetch.resolve: a.test: "localhost" is not an IP address`},
		{"files:\n  fetch:\n    timeout: -1s\n", 3, "files.fetch.timeout: -1s: use a positive duration"},
		{"files:\n  fetch:\n    allowhosts: [x]\n", 3, `unknown field "allowhosts"; the fields here are: allowHosts, maxSize, timeout, keepCopy, resolve`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml+"agents:\n  - id: a\n"), "keel.yaml")
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Line != tt.line || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Got(Parse) = %v; want line %d saying %q", err, tt.line, tt.want)
			}
		})
	}
}
