package openai_test

import (
	"errors"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
	sdk "github.com/openai/openai-go/v3"
)

func isSDKError(err error) bool {
	var e *sdk.Error
	return errors.As(err, &e)
}

func newModel(opts openai.Options) func(t testing.TB, baseURL string, timeouts providertest.Timeouts) keel.Model {
	return func(t testing.TB, baseURL string, timeouts providertest.Timeouts) keel.Model {
		t.Helper()
		o := opts
		o.APIKey = "sk-keel-test"
		o.BaseURL = baseURL + "/v1"
		o.IdleTimeout, o.FirstByteTimeout = timeouts.Idle, timeouts.FirstByte
		m, err := openai.New("gpt-4o-mini", o)
		if err != nil {
			t.Fatalf("Got(New) = %v; want a model", err)
		}
		return m
	}
}

func chatHarness() providertest.Harness {
	return providertest.Harness{
		Provider:         "openai",
		NewModel:         newModel(openai.Options{}),
		Text:             chatText,
		StreamText:       chatStreamText,
		ToolCall:         chatToolCall,
		StreamToolCall:   chatStreamToolCall,
		Error:            errorReply,
		ErrorCodes:       errorCodes,
		RefusedMediaType: providertest.XLSX,
		StreamError:      chatStreamError,
		IsSDKError:       isSDKError,
		SentFiles:        chatSentFiles,
		SentText:         chatSentText,
		RefusesUpFront: map[string]string{
			"text/plain":      "file part media type text/plain",
			"text/csv":        "file part media type text/csv; charset=utf-8",
			providertest.XLSX: "file part media type " + providertest.XLSX,
		},
		GeneratePath: "/v1/chat/completions",
		StreamPath:   "/v1/chat/completions",
	}
}

func responsesHarness(passThrough bool) providertest.Harness {
	h := providertest.Harness{
		Provider:         "openai",
		NewModel:         newModel(openai.Options{API: openai.APIResponses, OnlyPDFDocuments: !passThrough}),
		Text:             responsesText,
		StreamText:       responsesStreamText,
		ToolCall:         responsesToolCall,
		StreamToolCall:   responsesStreamToolCall,
		Error:            errorReply,
		ErrorCodes:       errorCodes,
		RefusedMediaType: providertest.XLSX,
		StreamError:      responsesStreamError,
		IsSDKError:       isSDKError,
		SentFiles:        responsesSentFiles,
		SentText:         responsesSentText,
		RefusesUpFront: map[string]string{
			"text/plain":      "file part media type text/plain",
			"text/csv":        "file part media type text/csv; charset=utf-8",
			"audio/wav":       "file part media type audio/wav",
			providertest.XLSX: "file part media type " + providertest.XLSX,
		},
		GeneratePath: "/v1/responses",
		StreamPath:   "/v1/responses",
	}
	if passThrough {
		h.RefusesUpFront = map[string]string{"audio/wav": "file part media type audio/wav"}
	}
	return h
}

func TestConformanceChat(t *testing.T) { providertest.Run(t, chatHarness()) }

func TestConformanceResponses(t *testing.T) { providertest.Run(t, responsesHarness(false)) }

func TestConformanceResponsesPassThrough(t *testing.T) { providertest.Run(t, responsesHarness(true)) }
