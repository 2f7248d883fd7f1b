package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/openai"
)

// resolveModel turns a model string into a model through the provider
// resolver. A missing key or base URL does not stop keel: the error is
// marked [config.ErrModelUnavailable], so the agent answers with it. A
// model string that names no provider does: no variable can fix it, the
// string must change where it is written (config says where).
func resolveModel(s string) (keel.Model, error) {
	m, err := provider.Resolve(s, provider.Options{})
	var ce *provider.ConfigError
	switch {
	case errors.As(err, &ce) && ce.Variable != provider.EnvModel:
		return nil, fmt.Errorf("%w: %w", config.ErrModelUnavailable, err)
	case errors.As(err, &ce):
		return nil, errors.New(ce.Reason)
	}
	return m, err
}

// defaultModel returns the model of agents that name none: KEEL_MODEL,
// else the first provider whose key is set; or, when there is none, the
// error such agents answer with, which says what to set and, for the
// command cmd, what to do then.
func defaultModel(cmd string) (string, error) {
	s, err := provider.FromEnv()
	if err != nil || s == "" {
		return "", noModelError{cmd: cmd}
	}
	return s, nil
}

// noModelError is what agents without a model answer with: it names the
// variables to set, in words a person at a terminal can act on, and fits
// the command that prints it. It is [config.ErrNoModel] to errors.Is.
type noModelError struct{ cmd string }

func (e noModelError) Error() string {
	next := "then start keel serve again"
	if e.cmd == "run" {
		next = "or name a model with --model provider/model and set its key"
	}
	return "no model configured: set " + provider.EnvModel + "=provider/model (such as " + provider.DefaultGoogle +
		"), or one of " + openai.EnvAPIKey + ", " + anthropic.EnvAPIKey + ", " + google.EnvAPIKey + "; " + next
}

func (noModelError) Is(target error) bool { return target == config.ErrNoModel }

// defaultModelChoice says which default model keel took when several
// providers' keys are set and KEEL_MODEL is not, and how to pick another;
// "" when there was no choice to make.
func defaultModelChoice(model string) string {
	if model == "" || strings.TrimSpace(os.Getenv(provider.EnvModel)) != "" {
		return ""
	}
	var set []string
	for _, v := range [][]string{{openai.EnvAPIKey}, {anthropic.EnvAPIKey}, {google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey}} {
		for _, name := range v {
			if strings.TrimSpace(os.Getenv(name)) != "" {
				set = append(set, name)
				break
			}
		}
	}
	if len(set) < 2 {
		return ""
	}
	return fmt.Sprintf("the default model is %s, as %s is set first of %s; set %s=provider/model to pick another (such as %s)",
		model, set[0], strings.Join(set, ", "), provider.EnvModel, provider.DefaultGoogle)
}
