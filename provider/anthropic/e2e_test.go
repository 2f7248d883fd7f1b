package anthropic_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/tool"
)

// The end-to-end tests run the agent, with its default error processors,
// on the Anthropic adapter against a local server speaking the Messages
// API. Only the stream-error retry processor is replaced, by one that
// waits a millisecond instead of 3 s.

func newAgent(t *testing.T, srv *providertest.Server, tools ...tool.Tool) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{
		ID:    "assistant",
		Model: newModel(t, srv.URL()),
		Tools: tools,
		ErrorProcessors: []processor.Processor{
			processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 2, Delay: time.Millisecond}),
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("Got(agent.New) = %v; want no error", err)
	}
	return a
}

type runFunc func(*agent.Agent, []keel.Message) (*agent.Result, error)

// runBoth runs the same check for a generated and a streamed run; stream
// tells the check which kind of answers to script.
func runBoth(t *testing.T, check func(t *testing.T, stream bool, run runFunc)) {
	t.Run("generate", func(t *testing.T) {
		check(t, false, func(a *agent.Agent, in []keel.Message) (*agent.Result, error) {
			return a.Generate(context.Background(), in)
		})
	})
	t.Run("stream", func(t *testing.T) {
		check(t, true, func(a *agent.Agent, in []keel.Message) (*agent.Result, error) {
			var res *agent.Result
			for ev, err := range a.Stream(context.Background(), in) {
				if err != nil {
					return nil, err
				}
				if ev.Type == agent.EventFinish {
					res = ev.Result
				}
			}
			if res == nil {
				t.Fatal("Got(stream) = no finish event; want one")
			}
			return res, nil
		})
	})
}

func answer(stream bool, text string) providertest.Reply {
	if stream {
		return providertest.Reply{Body: streamTextBody(text), ContentType: "text/event-stream"}
	}
	return providertest.Reply{Body: textBody(text)}
}

func leads() keel.FilePart {
	data := make([]byte, 2048)
	copy(data, "PK\x03\x04")
	return keel.FilePart{Data: data, MediaType: xlsx, Filename: "leads.xlsx"}
}

func report() keel.FilePart {
	return keel.FilePart{Data: []byte("%PDF-1.4 quarterly report"), MediaType: "application/pdf", Filename: "report.pdf"}
}

func withFile(f keel.FilePart) []keel.Message {
	return []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Summarise the leads."}, f}}}
}

// sentFileTypes returns, per request, the media types of the files it
// carried.
func sentFileTypes(t *testing.T, srv *providertest.Server) [][]string {
	t.Helper()
	var types [][]string
	for _, r := range srv.Requests() {
		var ts []string
		for _, f := range sentFiles(t, r.Body) {
			ts = append(ts, f.MediaType)
		}
		types = append(types, ts)
	}
	return types
}

// TestE2ERefusedSpreadsheet: the adapter refuses the xlsx before sending,
// so the one request that reaches the server carries a placeholder in its
// place, and the model's answer comes back.
func TestE2ERefusedSpreadsheet(t *testing.T) {
	runBoth(t, func(t *testing.T, stream bool, run runFunc) {
		srv := providertest.NewServer(t, answer(stream, "Here is the summary."))
		res, err := run(newAgent(t, srv), withFile(leads()))
		if err != nil {
			t.Fatalf("Got(run) = %v; want the model's answer", err)
		}
		if res.Text != "Here is the summary." {
			t.Errorf("Got(answer) = %q; want %q", res.Text, "Here is the summary.")
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("Got(requests) = %d; want 1", len(reqs))
		}
		if files := sentFiles(t, reqs[0].Body); len(files) != 0 {
			t.Errorf("Got(sent files) = %+v; want none", files)
		}
		if got, want := sentText(t, reqs[0].Body), []string{"Summarise the leads.", "[Attachment unavailable: leads.xlsx]"}; !slices.Equal(got, want) {
			t.Errorf("Got(user texts) = %q; want %q", got, want)
		}
		if got := res.Input[0].Parts[1].(keel.FilePart); got.MediaType != xlsx {
			t.Errorf("Got(stored file) = %q; want the xlsx kept", got.MediaType)
		}
	})
}

// TestE2EPDF: a PDF goes through in one request.
func TestE2EPDF(t *testing.T) {
	runBoth(t, func(t *testing.T, stream bool, run runFunc) {
		srv := providertest.NewServer(t, answer(stream, "A report."))
		res, err := run(newAgent(t, srv), withFile(report()))
		if err != nil || res.Text != "A report." {
			t.Fatalf("Got(run) = %v, %v; want the answer", res, err)
		}
		if got, want := sentFileTypes(t, srv), [][]string{{"application/pdf"}}; !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("Got(file types per request) = %q; want %q", got, want)
		}
	})
}

// TestE2ERetryable: 429 with Retry-After, 503, 529 overloaded and an
// overloaded_error event inside a stream are sent again with the file
// kept.
func TestE2ERetryable(t *testing.T) {
	overloadedEvent, _, _ := streamErrorReply()
	tests := []struct {
		name       string
		reply      providertest.Reply
		streamOnly bool
	}{
		{"429", providertest.Reply{Status: 429, Header: http.Header{"Retry-After": {"0"}}, Body: errorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit.")}, false},
		{"503", errorReply(providertest.Unavailable), false},
		{"529", errorReply(providertest.Overloaded), false},
		{"overloaded event", overloadedEvent, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runBoth(t, func(t *testing.T, stream bool, run runFunc) {
				if tc.streamOnly && !stream {
					t.Skip("an error event arrives only inside a stream")
				}
				srv := providertest.NewServer(t, tc.reply, answer(stream, "Recovered."))
				res, err := run(newAgent(t, srv), withFile(report()))
				if err != nil || res.Text != "Recovered." {
					t.Fatalf("Got(run) = %v; want the answer after a retry", err)
				}
				if got, want := sentFileTypes(t, srv), [][]string{{"application/pdf"}, {"application/pdf"}}; !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("Got(file types per request) = %q; want the file in both %q", got, want)
				}
			})
		})
	}
}

// TestE2EErrorsSurface: a 401 is never retried, and a 400 that has nothing
// to do with files, on a request without one, surfaces after one request.
func TestE2EErrorsSurface(t *testing.T) {
	for _, kind := range []providertest.ErrorKind{providertest.Unauthorized, providertest.BadRequest} {
		t.Run(kind.String(), func(t *testing.T) {
			runBoth(t, func(t *testing.T, stream bool, run runFunc) {
				rep := errorReply(kind)
				srv := providertest.NewServer(t, rep, answer(stream, "never"))
				_, err := run(newAgent(t, srv), []keel.Message{keel.UserText("hi")})
				var api *keel.APICallError
				if !errors.As(err, &api) || api.StatusCode != rep.Status || api.Body != rep.Body {
					t.Fatalf("Got(run error) = %v; want the %d APICallError", err, rep.Status)
				}
				var se *sdk.Error
				if !errors.As(err, &se) {
					t.Errorf("Got(errors.As *anthropic.Error) = false; want true")
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("Got(requests) = %d; want 1", n)
				}
			})
		})
	}
}

// TestE2EToolRoundTrip: Claude calls a tool, the agent runs it, the
// result goes back as a tool_result, and the final answer comes back.
func TestE2EToolRoundTrip(t *testing.T) {
	weather := providertest.WeatherTool()
	runBoth(t, func(t *testing.T, stream bool, run runFunc) {
		call := providertest.Reply{Body: toolCallBody("toolu_01A", "get_weather", `{"city":"Paris"}`)}
		if stream {
			call = providertest.Reply{Body: streamToolCallBody("toolu_01A", "get_weather", `{"city":"Paris"}`), ContentType: "text/event-stream"}
		}
		srv := providertest.NewServer(t, call, answer(stream, "It is sunny."))
		res, err := run(newAgent(t, srv, weather), []keel.Message{keel.UserText("Weather in Paris?")})
		if err != nil {
			t.Fatalf("Got(run) = %v; want no error", err)
		}
		if res.Text != "It is sunny." || len(res.ToolResults) != 1 {
			t.Fatalf("Got(result) = %q, %d tool results; want the answer after one tool call", res.Text, len(res.ToolResults))
		}
		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("Got(requests) = %d; want 2", len(reqs))
		}
		first, second := decodeRequest(t, reqs[0].Body), decodeRequest(t, reqs[1].Body)
		if len(first.Tools) != 1 || first.Tools[0].Name != "get_weather" || first.Stream != stream {
			t.Errorf("Got(first request tools, stream) = %+v, %v; want get_weather declared, %v", first.Tools, first.Stream, stream)
		}
		if n := len(second.Messages); n != 3 || second.Messages[1].Role != "assistant" || second.Messages[2].Role != "user" {
			t.Fatalf("Got(second request messages) = %+v; want user, assistant, user", second.Messages)
		}
		var use, result *wireBlock
		for i, b := range second.Messages[1].Content {
			if b.Type == "tool_use" {
				use = &second.Messages[1].Content[i]
			}
		}
		for i, b := range second.Messages[2].Content {
			if b.Type == "tool_result" {
				result = &second.Messages[2].Content[i]
			}
		}
		if use == nil || use.ID != "toolu_01A" || !jsonEq(use.Input, `{"city":"Paris"}`) {
			t.Errorf("Got(tool_use) = %+v; want toolu_01A with its input", use)
		}
		if result == nil || result.ToolUseID != "toolu_01A" || len(result.Content) != 1 || !strings.Contains(result.Content[0].Text, "sunny in Paris") {
			t.Errorf("Got(tool_result) = %+v; want the tool's output for toolu_01A", result)
		}
	})
}
