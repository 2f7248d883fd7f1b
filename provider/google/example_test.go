package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// A model pointed at a local server speaking the Gemini API. With a real
// key, leave BaseURL empty (or set GOOGLE_GEMINI_BASE_URL).
func ExampleNew() {
	srv := googletest.Start(googletest.Options{Text: "Hello from Gemini."})
	defer srv.Close()

	m, err := google.New("gemini-2.5-flash", google.Options{APIKey: "test", BaseURL: srv.URL()})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{
		keel.SystemText("Be brief."),
		keel.UserText("Say hello."),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text(), resp.FinishReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
	fmt.Println(srv.Requests()[0].Path)
	// Output:
	// Hello from Gemini. stop 11 7
	// /v1beta/models/gemini-2.5-flash:generateContent
}

// Streaming an answer: text arrives in deltas, then a finish event.
func ExampleModel_Stream() {
	srv := googletest.Start(googletest.Options{Text: "One two three."})
	defer srv.Close()

	m, _ := google.New("gemini-2.5-flash", google.Options{APIKey: "test", BaseURL: srv.URL()})
	for ev, err := range m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("Count.")}}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch ev.Type {
		case keel.EventTextDelta:
			fmt.Printf("%q\n", ev.Text)
		case keel.EventFinish:
			fmt.Println(ev.FinishReason)
		}
	}
	// Output:
	// "One "
	// "two "
	// "three."
	// stop
}

// A tool call without an ID from Gemini gets one made from the response ID
// and its position.
func ExampleModel_Generate_toolCall() {
	srv := googletest.Start(googletest.Options{
		Respond: func(googletest.Request, int) (providertest.Reply, bool) {
			return providertest.Reply{Body: googletest.ToolCallBody("", "get_weather", `{"city":"Paris"}`)}, true
		},
	})
	defer srv.Close()

	m, _ := google.New("gemini-2.5-flash", google.Options{APIKey: "test", BaseURL: srv.URL()})
	resp, _ := m.Generate(context.Background(), &keel.Request{
		Messages: []keel.Message{keel.UserText("Weather in Paris?")},
		Tools: []keel.ToolDefinition{{
			Name:        "get_weather",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
		}},
	})
	for _, c := range resp.ToolCalls() {
		fmt.Println(c.ID, c.Name, string(c.Input))
	}
	fmt.Println(resp.FinishReason)
	// Output:
	// call_resp_keel_1_0 get_weather {"city":"Paris"}
	// tool-calls
}

// Gemini rejects some file types only once the request arrives: the error
// is an APICallError, and errors.As still reaches the SDK's error.
func ExampleModel_Generate_unsupportedFile() {
	srv := googletest.Start(googletest.Options{Internal: []string{"application/msword"}})
	defer srv.Close()

	m, _ := google.New("gemini-2.5-flash", google.Options{APIKey: "test", BaseURL: srv.URL()})
	_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{{
		Role:  keel.RoleUser,
		Parts: []keel.Part{keel.FilePart{Data: []byte("doc"), MediaType: "application/msword"}},
	}}})
	var api *keel.APICallError
	if errors.As(err, &api) {
		fmt.Println(api.StatusCode, api.Type, api.Retryable)
	}
	// Output:
	// 502 INTERNAL true
}
