package provider_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/providertest"
)

func ExampleResolve() {
	m, err := provider.Resolve("openai/gpt-4o-mini", provider.Options{APIKey: "sk-example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Provider(), m.Name())
	// Output: openai gpt-4o-mini
}

func ExampleResolve_compatible() {
	m, err := provider.Resolve("openai-compatible/llama3.2", provider.Options{
		BaseURL: "http://localhost:11434/v1", ProviderName: "ollama",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Provider(), m.Name())
	// Output: ollama llama3.2
}

func ExampleConfigError() {
	_, err := provider.Resolve("mistral/mistral-large", provider.Options{})
	var ce *provider.ConfigError
	if errors.As(err, &ce) {
		fmt.Println(ce.Variable)
		fmt.Println(err)
	}
	// Output:
	// KEEL_MODEL
	// provider: model "mistral/mistral-large": unknown provider "mistral" (known: openai, anthropic, google, openai-compatible): set KEEL_MODEL
}

// A provider that stops sending half way through a stream: the call ends
// after the idle timeout with a retryable error, which keel's stream-error
// retry sends again.
func ExampleOptions_idleTimeout() {
	body := "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}],\"role\":\"model\"}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"lo\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}]}\n\n"
	srv := providertest.Start(providertest.Reply{Body: body, ContentType: "text/event-stream", Stall: true})
	defer srv.Close()

	m, err := provider.Resolve("google/gemini-2.5-flash", provider.Options{
		APIKey: "example", BaseURL: srv.URL(), IdleTimeout: 50 * time.Millisecond,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("Hi")}}) {
		var api *keel.APICallError
		switch {
		case errors.As(err, &api):
			fmt.Println("retryable:", api.Retryable, "idle timeout:", errors.Is(err, keel.ErrIdleTimeout))
		case err == nil:
			fmt.Printf("%s %q\n", ev.Type, ev.Text)
		}
	}
	// Output:
	// text-delta "Hel"
	// retryable: true idle timeout: true
}
