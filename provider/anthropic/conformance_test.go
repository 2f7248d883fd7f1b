package anthropic_test

import (
	"errors"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/providertest"
)

const xlsx = providertest.XLSX

func newModel(t testing.TB, baseURL string) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "sk-ant-test", BaseURL: baseURL})
	if err != nil {
		t.Fatalf("Got(New) = %v; want a model", err)
	}
	return m
}

func harness() providertest.Harness {
	stream := func(body string) providertest.Reply {
		return providertest.Reply{Body: body, ContentType: "text/event-stream"}
	}
	return providertest.Harness{
		Provider: "anthropic",
		NewModel: func(t testing.TB, baseURL string) keel.Model { return newModel(t, baseURL) },
		Text:     func(text string) providertest.Reply { return providertest.Reply{Body: textBody(text)} },
		StreamText: func(text string) providertest.Reply {
			return stream(streamTextBody(text))
		},
		ToolCall: func(id, name, args string) providertest.Reply {
			return providertest.Reply{Body: toolCallBody(id, name, args)}
		},
		StreamToolCall: func(id, name, args string) providertest.Reply {
			return stream(streamToolCallBody(id, name, args))
		},
		Error:       errorReply,
		StreamError: streamErrorReply,
		IsSDKError: func(err error) bool {
			var e *sdk.Error
			return errors.As(err, &e)
		},
		SentFiles: sentFiles,
		SentText:  sentText,
		RefusesUpFront: map[string]string{
			xlsx:        "media type: " + xlsx,
			"audio/wav": "media type: audio/wav",
		},
		GeneratePath: "/v1/messages",
		StreamPath:   "/v1/messages",
	}
}

func TestConformance(t *testing.T) {
	providertest.Run(t, harness())
}
