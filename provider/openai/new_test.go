package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

func clearOpenAIEnv(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"} {
		t.Setenv(v, "")
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name    string
		model   string
		opts    openai.Options
		wantErr error
		wantVar string
	}{
		{"no key", "gpt-4o-mini", openai.Options{}, openai.ErrNoAPIKey, "OPENAI_API_KEY"},
		{"compatible without base URL", "llama3.2", openai.Options{ProviderName: "ollama"}, openai.ErrNoBaseURL, "OPENAI_COMPATIBLE_BASE_URL"},
		{"unknown API", "gpt-4o-mini", openai.Options{APIKey: "sk", API: "assistants"}, nil, "responses"},
		{"empty name", " ", openai.Options{APIKey: "sk"}, nil, "empty model name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clearOpenAIEnv(t)
			m, err := openai.New(tc.model, tc.opts)
			if err == nil || m != nil {
				t.Fatalf("Got(New) = %v, %v; want an error", m, err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("Got(error) = %v; want it to wrap %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantVar) || !strings.HasPrefix(err.Error(), "openai: ") {
				t.Errorf("Got(error) = %q; want an openai error naming %s", err, tc.wantVar)
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	s := providertest.NewServer(t, chatText("ok"))
	clearOpenAIEnv(t)
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", s.URL()+"/v1")
	t.Setenv("OPENAI_ORG_ID", "org-keel")
	m, err := openai.New("gpt-4o-mini", openai.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer sk-from-env" || r.Header.Get("OpenAI-Organization") != "org-keel" || r.Path != "/v1/chat/completions" {
		t.Errorf("Got(request) = %s %q %q; want the environment's URL, key and organisation", r.Path, r.Header.Get("Authorization"), r.Header.Get("OpenAI-Organization"))
	}
}

// An OpenAI-compatible server must never see the OpenAI key or
// organisation, whatever the environment holds.
func TestCompatibleServerGetsNoOpenAISecrets(t *testing.T) {
	tests := []struct {
		name, compatibleKey, wantAuth string
	}{
		{"no key", "", ""},
		{"its own key", "local-key", "Bearer local-key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, chatText("ok"))
			clearOpenAIEnv(t)
			t.Setenv("OPENAI_API_KEY", "sk-secret")
			t.Setenv("OPENAI_ORG_ID", "org-secret")
			t.Setenv("OPENAI_COMPATIBLE_BASE_URL", s.URL()+"/v1")
			t.Setenv("OPENAI_COMPATIBLE_API_KEY", tc.compatibleKey)
			m, err := openai.New("llama3.2", openai.Options{ProviderName: "ollama"})
			if err != nil {
				t.Fatal(err)
			}
			if m.Provider() != "ollama" {
				t.Errorf("Got(Provider()) = %q; want ollama", m.Provider())
			}
			if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
				t.Fatal(err)
			}
			h := s.Requests()[0].Header
			if h.Get("Authorization") != tc.wantAuth || h.Get("OpenAI-Organization") != "" {
				t.Errorf("Got(Authorization, OpenAI-Organization) = %q, %q; want %q and none", h.Get("Authorization"), h.Get("OpenAI-Organization"), tc.wantAuth)
			}
		})
	}
}
