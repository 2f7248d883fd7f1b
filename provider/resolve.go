package provider

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/openai"
)

// EnvModel names the variable holding the model string [FromEnv] prefers,
// such as "anthropic/claude-sonnet-4-5".
const EnvModel = "KEEL_MODEL"

// Compatible is the provider part of model strings for OpenAI-compatible
// servers: "openai-compatible/llama3.2".
const Compatible = "openai-compatible"

// Options configures [Resolve]. Empty fields are read from the
// environment by each adapter, under the names the package doc lists.
type Options struct {
	// APIKey is the key for the resolved provider.
	APIKey string
	// BaseURL is the resolved provider's base URL, in its SDK's convention
	// (OpenAI: with /v1; Anthropic and Gemini: the host's root).
	BaseURL string
	// HTTPClient sends the requests; nil means each SDK's default.
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers http.Header
	// ProviderName is what an OpenAI-compatible model's Provider returns,
	// such as "ollama"; empty means "openai-compatible".
	ProviderName string
	// IdleTimeout bounds each wait for the provider once an answer has
	// started: a call that receives nothing for that long ends with a
	// retryable [keel.APICallError] whose cause is [keel.ErrIdleTimeout].
	// 0 means 60 s; a negative value, no bound.
	IdleTimeout time.Duration
	// FirstByteTimeout bounds the wait for an answer's first byte once the
	// request is sent, streamed or not, since a model may think for
	// minutes first. 0 means 10 minutes; a negative value, no bound.
	FirstByteTimeout time.Duration
}

// ConfigError reports a model string that cannot be resolved: an unknown
// provider, or a provider whose key or base URL is not set. Variable names
// the environment variable that would fix it.
type ConfigError struct {
	// Model is the model string as given.
	Model string
	// Provider is the provider part of the model string.
	Provider string
	// Variable is the environment variable to set, such as
	// "OPENAI_API_KEY" or "KEEL_MODEL".
	Variable string
	// Reason says what is missing or wrong.
	Reason string
}

// Error says what is wrong and which variable to set.
func (e *ConfigError) Error() string {
	if e.Model == "" {
		return fmt.Sprintf("provider: %s: set %s", e.Reason, e.Variable)
	}
	return fmt.Sprintf("provider: model %q: %s: set %s", e.Model, e.Reason, e.Variable)
}

// The default model of each provider, for [FromEnv].
const (
	DefaultOpenAI    = "openai/gpt-4o-mini"
	DefaultAnthropic = "anthropic/claude-sonnet-4-5"
	DefaultGoogle    = "google/gemini-2.5-flash"
)

// Resolve returns the model a model string names:
//
//	openai/gpt-4o-mini            Chat Completions
//	openai/responses/gpt-5        the Responses API
//	anthropic/claude-sonnet-4-5   Anthropic Messages
//	google/gemini-2.5-flash       the Gemini API
//	openai-compatible/llama3.2    an OpenAI-compatible server (base URL required)
//
// An unknown provider, or a missing key or base URL, is a [*ConfigError]
// naming the variable to set; nothing is sent.
func Resolve(modelString string, opts Options) (keel.Model, error) {
	prov, name, ok := strings.Cut(strings.TrimSpace(modelString), "/")
	if !ok || prov == "" || name == "" {
		return nil, &ConfigError{Model: modelString, Provider: prov, Variable: EnvModel,
			Reason: `want "provider/model", such as "` + DefaultOpenAI + `"`}
	}
	missingKey := func(vars ...string) error {
		if opts.APIKey != "" {
			return nil
		}
		for _, v := range vars {
			if strings.TrimSpace(os.Getenv(v)) != "" {
				return nil
			}
		}
		return &ConfigError{Model: modelString, Provider: prov, Variable: vars[0], Reason: "no API key for " + prov}
	}
	var (
		m   keel.Model
		err error
	)
	switch prov {
	case "openai":
		if err := missingKey(openai.EnvAPIKey); err != nil {
			return nil, err
		}
		o := openai.Options{APIKey: opts.APIKey, BaseURL: opts.BaseURL, HTTPClient: opts.HTTPClient, Headers: opts.Headers,
			IdleTimeout: opts.IdleTimeout, FirstByteTimeout: opts.FirstByteTimeout}
		if rest, found := strings.CutPrefix(name, openai.APIResponses+"/"); found {
			o.API, name = openai.APIResponses, rest
		}
		m, err = openai.New(name, o)
	case "anthropic":
		if err := missingKey(anthropic.EnvAPIKey); err != nil {
			return nil, err
		}
		m, err = anthropic.New(name, anthropic.Options{APIKey: opts.APIKey, BaseURL: opts.BaseURL, HTTPClient: opts.HTTPClient,
			Headers: opts.Headers, IdleTimeout: opts.IdleTimeout, FirstByteTimeout: opts.FirstByteTimeout})
	case "google":
		if err := missingKey(google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey); err != nil {
			return nil, err
		}
		m, err = google.New(name, google.Options{APIKey: opts.APIKey, BaseURL: opts.BaseURL, HTTPClient: opts.HTTPClient,
			Headers: opts.Headers, IdleTimeout: opts.IdleTimeout, FirstByteTimeout: opts.FirstByteTimeout})
	case Compatible:
		if opts.BaseURL == "" && strings.TrimSpace(os.Getenv(openai.EnvCompatibleBaseURL)) == "" {
			return nil, &ConfigError{Model: modelString, Provider: prov, Variable: openai.EnvCompatibleBaseURL,
				Reason: "an OpenAI-compatible server needs a base URL such as http://localhost:11434/v1"}
		}
		pn := opts.ProviderName
		pn = cmp.Or(pn, Compatible)
		m, err = openai.New(name, openai.Options{APIKey: opts.APIKey, BaseURL: opts.BaseURL, HTTPClient: opts.HTTPClient,
			Headers: opts.Headers, ProviderName: pn, IdleTimeout: opts.IdleTimeout, FirstByteTimeout: opts.FirstByteTimeout})
	default:
		return nil, &ConfigError{Model: modelString, Provider: prov, Variable: EnvModel,
			Reason: `unknown provider "` + prov + `" (known: openai, anthropic, google, ` + Compatible + `)`}
	}
	if err != nil {
		return nil, fmt.Errorf("provider: resolve %q: %w", modelString, err)
	}
	return m, nil
}

// FromEnv returns the model string to use when none is given: KEEL_MODEL
// if set, else the default model of the first provider whose key is set
// (OpenAI, Anthropic, then Google). With neither, it is a [*ConfigError]
// naming KEEL_MODEL.
func FromEnv() (string, error) {
	if m := strings.TrimSpace(os.Getenv(EnvModel)); m != "" {
		return m, nil
	}
	for _, c := range []struct {
		model string
		vars  []string
	}{
		{DefaultOpenAI, []string{openai.EnvAPIKey}},
		{DefaultAnthropic, []string{anthropic.EnvAPIKey}},
		{DefaultGoogle, []string{google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey}},
	} {
		for _, v := range c.vars {
			if strings.TrimSpace(os.Getenv(v)) != "" {
				return c.model, nil
			}
		}
	}
	return "", &ConfigError{Variable: EnvModel, Reason: "no model configured: set " + openai.EnvAPIKey + ", " +
		anthropic.EnvAPIKey + " or " + google.EnvAPIKey + ", or name a model in " + EnvModel}
}

// IsConfigError reports whether err is, or wraps, a [*ConfigError].
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
