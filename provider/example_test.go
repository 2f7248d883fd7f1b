package provider_test

import (
	"errors"
	"fmt"

	"github.com/keel-go/keel/provider"
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
