package provider_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/openai"
)

// The fuzz targets below give each adapter's stream reader arbitrary
// bytes, through its public surface: the adapter's HTTP client answers its
// call with the fuzzed status and body. Whatever they are, a stream ends,
// with one finish event last or with an error; an answer other than 2xx
// is an *keel.APICallError with that status, retryable as
// keel.IsRetryableStatus says.

// fuzzAnswer is the transport of the adapter's HTTP client: it reads the
// request and answers with the status and body the fuzz input sets. No
// socket is involved, so each input takes microseconds.
type fuzzAnswer struct {
	mu     sync.Mutex
	status int
	body   []byte
}

func (a *fuzzAnswer) set(status int, body []byte) {
	a.mu.Lock()
	a.status, a.body = status, body
	a.mu.Unlock()
}

func (a *fuzzAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	a.mu.Lock()
	status, body := a.status, a.body
	a.mu.Unlock()
	ct := "text/event-stream"
	if status/100 != 2 {
		ct = "application/json"
	}
	return &http.Response{
		StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {ct}},
		Body:    io.NopCloser(bytes.NewReader(body)),
		Request: req, ContentLength: int64(len(body)),
	}, nil
}

// fuzzStream runs the fuzz target for the model that newModel makes with
// an HTTP client whose every call is answered with the fuzz input.
func fuzzStream(f *testing.F, seeds []string, newModel func(baseURL string, client *http.Client) (keel.Model, error)) {
	answer := &fuzzAnswer{}
	m, err := newModel("http://provider.test", &http.Client{Transport: answer})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(200, []byte(s))
	}
	for _, status := range []int{400, 401, 404, 413, 429, 500, 503, 529} {
		f.Add(status, []byte(`{"error":{"message":"no","type":"invalid_request_error","code":400,"status":"INVALID_ARGUMENT"}}`))
	}
	f.Add(400, []byte(`not json`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 200 || status > 599 || status/100 == 3 || status == http.StatusNoContent || status == http.StatusNotModified {
			return // not an answer a provider gives to a POST with a body, or one net/http cannot send with it
		}
		answer.set(status, body)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		req := &keel.Request{Messages: []keel.Message{keel.UserText("Hi")}}
		// The fuzz engine has no bound on one input's time: a reader that
		// loops for ever fails here, with the input saved.
		type outcome struct {
			finishes, events int
			streamErr        error
			bad              string
		}
		done := make(chan outcome, 1)
		go func() {
			var o outcome
			for ev, err := range m.Stream(ctx, req) {
				if o.streamErr != nil {
					o.bad = fmt.Sprintf("event %+v, %v after the error %v; want the stream ended by its error", ev, err, o.streamErr)
					break
				}
				if err != nil {
					o.streamErr = err
					continue
				}
				if o.finishes > 0 {
					o.bad = fmt.Sprintf("event %+v after the finish; want the finish last", ev)
					break
				}
				o.events++
				if ev.Type == keel.EventFinish {
					o.finishes++
				}
			}
			done <- o
		}()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Got(stream of status %d, %q) still running after 10 s, its context not ended; want it ended", status, body)
		}
		if o.bad != "" {
			t.Fatalf("Got(stream of status %d, %q): %s", status, body, o.bad)
		}
		finishes, events, streamErr := o.finishes, o.events, o.streamErr
		switch {
		case ctx.Err() != nil:
			t.Fatalf("Got(stream of status %d, %q) still running after 30 s; want it ended", status, body)
		case status/100 != 2:
			var api *keel.APICallError
			if !errors.As(streamErr, &api) || api.StatusCode != status {
				t.Fatalf("Got(stream of status %d, %q) error %v; want a *keel.APICallError with that status", status, body, streamErr)
			}
			if want := keel.IsRetryableStatus(status, http.Header{}); api.Retryable != want {
				t.Fatalf("Got(APICallError of status %d).Retryable = %v; want %v", status, api.Retryable, want)
			}
		case streamErr == nil && finishes != 1:
			t.Fatalf("Got(stream of %q) = %d events, %d finishes, no error; want one finish or an error", body, events, finishes)
		case streamErr != nil && streamErr.Error() == "":
			t.Fatalf("Got(stream of %q) error with no text; want one saying what went wrong", body)
		}
	})
}

func FuzzOpenAIChatStream(f *testing.F) {
	fuzzStream(f, []string{
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n" +
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\ndata: [DONE]\n\n",
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]},\"finish_reason\":null}]}\n\n" +
			"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"error\":{\"message\":\"overloaded\"}}\n\n", "data: [DONE]\n\n", ": ping\n\n", "data: {", "",
	}, func(url string, c *http.Client) (keel.Model, error) {
		return openai.New("gpt-4o", openai.Options{APIKey: "k", BaseURL: url + "/v1", API: openai.APIChat, HTTPClient: c})
	})
}

func FuzzOpenAIResponsesStream(f *testing.F) {
	fuzzStream(f, []string{
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\",\"item_id\":\"m1\",\"output_index\":0,\"content_index\":0,\"sequence_number\":1}\n\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2,\"response\":{\"id\":\"r1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-4o\",\"output\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"total_tokens\":2}}}\n\n",
		"event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"r1\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\",\"message\":\"slow\"}\n\n", "data: {", "",
	}, func(url string, c *http.Client) (keel.Model, error) {
		return openai.New("gpt-4o", openai.Options{APIKey: "k", BaseURL: url + "/v1", API: openai.APIResponses, HTTPClient: c})
	})
}

func FuzzAnthropicStream(f *testing.F) {
	fuzzStream(f, []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":1\"}}\n\n",
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", "event: ping\ndata: {\"type\":\"ping\"}\n\n", "",
	}, func(url string, c *http.Client) (keel.Model, error) {
		return anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "k", BaseURL: url, HTTPClient: c})
	})
}

func FuzzGoogleStream(f *testing.F) {
	fuzzStream(f, []string{
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":1,\"candidatesTokenCount\":1},\"modelVersion\":\"gemini-2.5-flash\"}\n\n",
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":1}}}],\"role\":\"model\"}}]}\n\ndata: {\"candidates\":[{\"finishReason\":\"STOP\"}]}\n\n",
		"data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n", "data: {\"error\":{\"code\":500,\"message\":\"boom\"}}\n\n", "data: [", "",
	}, func(url string, c *http.Client) (keel.Model, error) {
		return google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: url, HTTPClient: c})
	})
}
