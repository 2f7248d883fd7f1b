package google_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

func clearEnv(t *testing.T) {
	for _, v := range []string{google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey, google.EnvBaseURL, "GOOGLE_GENAI_USE_VERTEXAI"} {
		t.Setenv(v, "")
	}
}

func TestNewWithoutKey(t *testing.T) {
	clearEnv(t)
	_, err := google.New(testModel, google.Options{})
	if !errors.Is(err, google.ErrNoAPIKey) {
		t.Fatalf("Got(New error) = %v; want ErrNoAPIKey", err)
	}
	if !strings.Contains(err.Error(), google.EnvAPIKey) {
		t.Errorf("Got(New error) = %q; want it to name %s", err, google.EnvAPIKey)
	}
}

func TestNewEmptyModelName(t *testing.T) {
	if _, err := google.New(" ", google.Options{APIKey: "k"}); err == nil {
		t.Errorf("Got(New(\" \")) = nil; want an error")
	}
}

// TestKeyFromEnvironment checks which variable's key reaches the API.
func TestKeyFromEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		opt  string
		want string
	}{
		{"keel variable", map[string]string{google.EnvAPIKey: "a", google.EnvGoogleAPIKey: "b", google.EnvGeminiAPIKey: "c"}, "", "a"},
		{"GOOGLE_API_KEY before GEMINI_API_KEY", map[string]string{google.EnvGoogleAPIKey: "b", google.EnvGeminiAPIKey: "c"}, "", "b"},
		{"GEMINI_API_KEY", map[string]string{google.EnvGeminiAPIKey: "c"}, "", "c"},
		{"option wins", map[string]string{google.EnvAPIKey: "a"}, "opt", "opt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			srv := googletest.NewServer(t, googletest.Options{})
			m, err := google.New(testModel, google.Options{APIKey: tt.opt, BaseURL: srv.URL()})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
				t.Fatal(err)
			}
			if got := srv.Requests()[0].Header.Get("X-Goog-Api-Key"); got != tt.want {
				t.Errorf("Got(x-goog-api-key) = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestBaseURL checks that GOOGLE_GEMINI_BASE_URL is used, and that an
// explicit option wins over it even though the SDK reads it too.
func TestBaseURL(t *testing.T) {
	clearEnv(t)
	envSrv := googletest.NewServer(t, googletest.Options{Text: "from env"})
	optSrv := googletest.NewServer(t, googletest.Options{Text: "from option"})
	t.Setenv(google.EnvBaseURL, envSrv.URL())
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	for _, tt := range []struct {
		name, baseURL, want string
	}{
		{"environment", "", "from env"},
		{"option", optSrv.URL(), "from option"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := google.New(testModel, google.Options{APIKey: "k", BaseURL: tt.baseURL})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text() != tt.want {
				t.Errorf("Got(answer) = %q; want %q", resp.Text(), tt.want)
			}
		})
	}
	if n := len(envSrv.Requests()) + len(optSrv.Requests()); n != 2 {
		t.Errorf("Got(requests) = %d; want 2", n)
	}
}

// TestOptionsHeadersAndClient checks Options.Headers reach the server and
// that the caller's HTTP client is used without being changed.
func TestOptionsHeadersAndClient(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	rt := &countingTransport{}
	client := &http.Client{Transport: rt}
	m, err := google.New("models/"+testModel, google.Options{
		APIKey: "k", BaseURL: srv.URL(), HTTPClient: client,
		Headers: http.Header{"X-Team": {"keel"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != testModel || m.Provider() != "google" {
		t.Errorf("Got(Name, Provider) = %q, %q; want %q, google", m.Name(), m.Provider(), testModel)
	}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("X-Team"); got != "keel" {
		t.Errorf("Got(X-Team) = %q; want keel", got)
	}
	if rt.n != 1 {
		t.Errorf("Got(requests through the caller's transport) = %d; want 1", rt.n)
	}
	if client.Transport != rt {
		t.Errorf("Got(caller's client transport) changed; want it untouched")
	}
}

type countingTransport struct{ n int }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return http.DefaultTransport.RoundTrip(r)
}

// TestClientTimeout checks a timeout of the caller's HTTP client, unlike
// the caller's context, is a failed connection marked retryable. (Its
// cause still wraps context.DeadlineExceeded, as net/http makes it.)
func TestClientTimeout(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Reply{Body: googletest.TextBody("late"), Delay: 5 * time.Second})
	m, err := google.New(testModel, google.Options{APIKey: "k", BaseURL: srv.URL(), HTTPClient: &http.Client{Timeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
	var api *keel.APICallError
	if !errors.As(err, &api) || api.StatusCode != 0 || !api.Retryable || api.URL == "" {
		t.Fatalf("Got(error) = %T %v; want a retryable APICallError without status", err, err)
	}
}

func TestRefusalsByField(t *testing.T) {
	providertest.CheckRefusals(t, func(t *testing.T, url string) keel.Model { return newModel(t, url) }, providertest.GeminiRefusals)
}
