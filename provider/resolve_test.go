package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

var keyVars = []string{
	"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
	"GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
	"OPENAI_COMPATIBLE_BASE_URL", "OPENAI_COMPATIBLE_API_KEY", "KEEL_MODEL",
}

// clearEnv empties every variable the resolver reads, for this test only.
func clearEnv(t *testing.T) {
	for _, v := range keyVars {
		t.Setenv(v, "")
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		model        string
		env          map[string]string
		opts         provider.Options
		wantProvider string
		wantName     string
	}{
		{"openai/gpt-4o-mini", map[string]string{"OPENAI_API_KEY": "sk-env"}, provider.Options{}, "openai", "gpt-4o-mini"},
		{"openai/responses/gpt-5", nil, provider.Options{APIKey: "sk-opt"}, "openai", "gpt-5"},
		{"anthropic/claude-sonnet-4-5", map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}, provider.Options{}, "anthropic", "claude-sonnet-4-5"},
		{"google/gemini-2.5-flash", map[string]string{"GEMINI_API_KEY": "g-key"}, provider.Options{}, "google", "gemini-2.5-flash"},
		{"google/gemini-2.5-flash", map[string]string{"GOOGLE_GENERATIVE_AI_API_KEY": "g-key"}, provider.Options{}, "google", "gemini-2.5-flash"},
		{"openai-compatible/llama3.2", map[string]string{"OPENAI_COMPATIBLE_BASE_URL": "http://localhost:11434/v1"}, provider.Options{}, "openai-compatible", "llama3.2"},
		{"openai-compatible/meta-llama/llama-3-8b", nil, provider.Options{BaseURL: "http://localhost:8000/v1", ProviderName: "vllm"}, "vllm", "meta-llama/llama-3-8b"},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			m, err := provider.Resolve(tc.model, tc.opts)
			if err != nil {
				t.Fatalf("Got(Resolve(%q)) = %v; want a model", tc.model, err)
			}
			if m.Provider() != tc.wantProvider || m.Name() != tc.wantName {
				t.Errorf("Got(Resolve(%q)) = %s %s; want %s %s", tc.model, m.Provider(), m.Name(), tc.wantProvider, tc.wantName)
			}
		})
	}
}

func TestResolveResponsesAPI(t *testing.T) {
	clearEnv(t)
	m, err := provider.Resolve("openai/responses/gpt-5", provider.Options{APIKey: "sk"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.(*openai.Model).API(); got != openai.APIResponses {
		t.Errorf("Got(API()) = %q; want %q", got, openai.APIResponses)
	}
}

func TestResolveConfigErrors(t *testing.T) {
	tests := []struct {
		model, wantVar string
	}{
		{"openai/gpt-4o-mini", "OPENAI_API_KEY"},
		{"anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"},
		{"google/gemini-2.5-flash", "GOOGLE_GENERATIVE_AI_API_KEY"},
		{"openai-compatible/llama3.2", "OPENAI_COMPATIBLE_BASE_URL"},
		{"mistral/large", "KEEL_MODEL"},
		{"gpt-4o-mini", "KEEL_MODEL"},
		{"openai/", "KEEL_MODEL"},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			clearEnv(t)
			m, err := provider.Resolve(tc.model, provider.Options{})
			var ce *provider.ConfigError
			if !errors.As(err, &ce) || m != nil {
				t.Fatalf("Got(Resolve(%q)) = %v, %v; want a *ConfigError", tc.model, m, err)
			}
			if ce.Variable != tc.wantVar || !strings.Contains(err.Error(), tc.wantVar) {
				t.Errorf("Got(error) = %q (Variable %q); want it to name %s", err, ce.Variable, tc.wantVar)
			}
			if !provider.IsConfigError(err) {
				t.Errorf("Got(IsConfigError) = false; want true")
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"keel model wins", map[string]string{"KEEL_MODEL": "google/gemini-2.5-pro", "OPENAI_API_KEY": "sk"}, "google/gemini-2.5-pro"},
		{"openai first", map[string]string{"OPENAI_API_KEY": "sk", "ANTHROPIC_API_KEY": "a"}, provider.DefaultOpenAI},
		{"anthropic", map[string]string{"ANTHROPIC_API_KEY": "a", "GEMINI_API_KEY": "g"}, provider.DefaultAnthropic},
		{"google by any of its keys", map[string]string{"GOOGLE_API_KEY": "g"}, provider.DefaultGoogle},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			got, err := provider.FromEnv()
			if err != nil || got != tc.want {
				t.Errorf("Got(FromEnv()) = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("nothing set", func(t *testing.T) {
		clearEnv(t)
		got, err := provider.FromEnv()
		var ce *provider.ConfigError
		if !errors.As(err, &ce) || ce.Variable != "KEEL_MODEL" || got != "" {
			t.Errorf("Got(FromEnv()) = %q, %v; want a ConfigError naming KEEL_MODEL", got, err)
		}
	})
}

// TestResolvePassesTimeouts checks that the idle and first-byte timeouts
// reach the adapter of every model string: a server that never answers
// ends the call after the first-byte timeout, one that stops half way
// after the idle timeout.
func TestResolvePassesTimeouts(t *testing.T) {
	models := []string{"openai/gpt-4o-mini", "openai/responses/gpt-5", "anthropic/claude-sonnet-4-5",
		"google/gemini-2.5-flash", "openai-compatible/llama3.2"}
	tests := []struct {
		name  string
		reply providertest.Reply
		opts  provider.Options
	}{
		{"first byte", providertest.Reply{Delay: time.Minute}, provider.Options{FirstByteTimeout: 50 * time.Millisecond}},
		{"idle", providertest.Reply{Body: `{"id":"resp_1","object":`, StallAfter: 10},
			provider.Options{IdleTimeout: 50 * time.Millisecond, FirstByteTimeout: time.Minute}},
	}
	for _, model := range models {
		for _, tc := range tests {
			t.Run(model+"/"+tc.name, func(t *testing.T) {
				clearEnv(t)
				s := providertest.NewServer(t, tc.reply)
				opts := tc.opts
				opts.APIKey, opts.BaseURL = "k", s.URL()
				if strings.HasPrefix(model, "openai") {
					opts.BaseURL += "/v1"
				}
				m, err := provider.Resolve(model, opts)
				if err != nil {
					t.Fatal(err)
				}
				_, err = m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
				var ae *keel.APICallError
				if !errors.As(err, &ae) || !ae.Retryable || !errors.Is(err, keel.ErrIdleTimeout) {
					t.Errorf("Got(error) = %v; want a retryable APICallError caused by keel.ErrIdleTimeout", err)
				}
			})
		}
	}
}
