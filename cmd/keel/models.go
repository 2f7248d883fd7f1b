package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
)

// resolveModel turns a model string into a model. A missing key does not
// stop keel: the error is marked [config.ErrModelUnavailable], so the
// agent answers with it.
func resolveModel(s string) (keel.Model, error) {
	p, name, _ := strings.Cut(s, "/")
	var (
		m   keel.Model
		err error
	)
	switch p {
	case "google":
		m, err = google.New(name, google.Options{})
		if errors.Is(err, google.ErrNoAPIKey) {
			return nil, fmt.Errorf("%w: %w", config.ErrModelUnavailable, err)
		}
	case "anthropic":
		m, err = anthropic.New(name, anthropic.Options{})
		if errors.Is(err, anthropic.ErrMissingAPIKey) {
			return nil, fmt.Errorf("%w: %w", config.ErrModelUnavailable, err)
		}
	default:
		return nil, fmt.Errorf("unknown provider %q: use google or anthropic", p)
	}
	return m, err
}

// defaultModel returns the model of agents that name none: KEEL_MODEL,
// else the first provider whose key is set; or, when there is none, the
// error such agents answer with.
func defaultModel() (string, error) {
	if s := strings.TrimSpace(os.Getenv("KEEL_MODEL")); s != "" {
		return s, nil
	}
	for _, c := range []struct{ env, model string }{
		{"ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"},
		{"GOOGLE_GENERATIVE_AI_API_KEY", "google/gemini-2.5-flash"},
		{"GOOGLE_API_KEY", "google/gemini-2.5-flash"},
		{"GEMINI_API_KEY", "google/gemini-2.5-flash"},
	} {
		if os.Getenv(c.env) != "" {
			return c.model, nil
		}
	}
	return "", config.ErrNoModel
}
