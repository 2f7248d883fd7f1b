package main

import (
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/provider"
)

// resolveModel turns a model string into a model through the provider
// resolver. A missing key or base URL does not stop keel: the error is
// marked [config.ErrModelUnavailable], so the agent answers with it. A
// model string that names no provider does: no variable can fix it.
func resolveModel(s string) (keel.Model, error) {
	m, err := provider.Resolve(s, provider.Options{})
	var ce *provider.ConfigError
	if errors.As(err, &ce) && ce.Variable != provider.EnvModel {
		return nil, fmt.Errorf("%w: %w", config.ErrModelUnavailable, err)
	}
	return m, err
}

// defaultModel returns the model of agents that name none: KEEL_MODEL,
// else the first provider whose key is set; or, when there is none, the
// error such agents answer with.
func defaultModel() (string, error) {
	// FromEnv fails only when nothing is set; config.ErrNoModel says what
	// to set in words a person at a terminal can act on.
	s, err := provider.FromEnv()
	if err != nil || s == "" {
		return "", config.ErrNoModel
	}
	return s, nil
}
