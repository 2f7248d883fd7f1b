package openai_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

func ExampleNew() {
	// A local server stands in for api.openai.com.
	srv := providertest.Start(providertest.Reply{Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
		"choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`})
	defer srv.Close()

	m, err := openai.New("gpt-4o-mini", openai.Options{APIKey: "sk-example", BaseURL: srv.URL() + "/v1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("Say hello")}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text(), resp.FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	// Output: Hello! stop 9 2
}

func ExampleModel_Generate_refusal() {
	srv := providertest.Start()
	defer srv.Close()
	m, _ := openai.New("gpt-4o-mini", openai.Options{APIKey: "sk-example", BaseURL: srv.URL() + "/v1"})

	sheet := keel.FilePart{Data: []byte("PK"), Filename: "leads.xlsx",
		MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
	_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{
		{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Summarise"}, sheet}},
	}})
	var ufe *keel.UnsupportedFunctionalityError
	fmt.Println(errors.As(err, &ufe), len(srv.Requests()))
	fmt.Println(err)
	// Output:
	// true 0
	// 'file part media type application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' functionality not supported.
}

func ExampleOptions_compatible() {
	// Ollama's OpenAI-compatible endpoint; no key is needed.
	m, err := openai.New("llama3.2", openai.Options{ProviderName: "ollama", BaseURL: "http://localhost:11434/v1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Provider(), m.Name(), m.API())
	// Output: ollama llama3.2 chat
}
