package anthropic_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/providertest"
)

// A local server stands in for api.anthropic.com; with a real key, leave
// BaseURL empty.
func ExampleModel_Generate() {
	srv := providertest.Start(providertest.Reply{Body: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":3}}`})
	defer srv.Close()

	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "sk-ant-example", BaseURL: srv.URL()})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{
		keel.SystemText("Be brief."),
		keel.UserText("Say hello"),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text(), resp.FinishReason, resp.Usage.TotalTokens)
	// Output: Hello! stop 12
}

func ExampleModel_Stream() {
	srv := providertest.Start(providertest.Reply{ContentType: "text/event-stream", Body: "" +
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_02\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo!\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"})
	defer srv.Close()

	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "sk-ant-example", BaseURL: srv.URL()})
	if err != nil {
		fmt.Println(err)
		return
	}
	for ev, err := range m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("Say hello")}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev.Type {
		case keel.EventTextDelta:
			fmt.Printf("%q\n", ev.Text)
		case keel.EventFinish:
			fmt.Println(ev.FinishReason, ev.Usage.OutputTokens)
		}
	}
	// Output:
	// "Hel"
	// "lo!"
	// stop 3
}

// A file type the Messages API does not read is refused before anything
// is sent; keel's unsupported-file handler reads the media type from the
// refusal.
func ExampleModel_Generate_refusal() {
	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "sk-ant-example", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise the leads."},
		keel.FilePart{Data: []byte("PK\x03\x04"), MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Filename: "leads.xlsx"},
	}}}})
	var refusal *keel.UnsupportedFunctionalityError
	fmt.Println(errors.As(err, &refusal))
	fmt.Println(err)
	// Output:
	// true
	// 'media type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' functionality not supported.
}
