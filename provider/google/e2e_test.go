package google_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/tool"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// The end-to-end tests run the agent, with its default error processors,
// on the Gemini adapter against a local server speaking Gemini's wire
// protocol. Only the stream-error retry processor is replaced, by one that
// waits a millisecond instead of 3 s.

func newAgent(t *testing.T, srv *googletest.Server, tools ...tool.Tool) *agent.Agent {
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

// runBoth runs the same check for a generated and a streamed run.
func runBoth(t *testing.T, check func(t *testing.T, run func(*agent.Agent, []keel.Message) (*agent.Result, error))) {
	t.Run("generate", func(t *testing.T) {
		check(t, func(a *agent.Agent, in []keel.Message) (*agent.Result, error) {
			return a.Generate(context.Background(), in)
		})
	})
	t.Run("stream", func(t *testing.T) {
		check(t, func(a *agent.Agent, in []keel.Message) (*agent.Result, error) {
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

func leads() keel.FilePart {
	data := make([]byte, 2048)
	copy(data, "PK\x03\x04")
	return keel.FilePart{Data: data, MediaType: xlsxType, Filename: "leads.xlsx"}
}

func withFile(f keel.FilePart) []keel.Message {
	return []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Summarise the leads."}, f}}}
}

// sentInline returns, per request, the media types that went inline, and
// the user texts of the last request.
func sentInline(t *testing.T, srv *googletest.Server) ([][]string, []string) {
	t.Helper()
	var types [][]string
	var texts []string
	for _, r := range srv.Requests() {
		b, err := r.Decode()
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, b.InlineMediaTypes())
		texts = b.UserTexts()
	}
	return types, texts
}

// TestE2ERefusedSpreadsheet: Gemini answers the xlsx with 400 "Unsupported
// MIME type" or with 502 INTERNAL; the second request carries no inline
// xlsx but a placeholder, and the model's answer comes back.
func TestE2ERefusedSpreadsheet(t *testing.T) {
	for name, opts := range map[string]googletest.Options{
		"400 unsupported": {Text: "Here is the summary.", Unsupported: []string{xlsxType}},
		"502 internal":    {Text: "Here is the summary.", Internal: []string{xlsxType}},
	} {
		t.Run(name, func(t *testing.T) {
			runBoth(t, func(t *testing.T, run func(*agent.Agent, []keel.Message) (*agent.Result, error)) {
				srv := googletest.NewServer(t, opts)
				res, err := run(newAgent(t, srv), withFile(leads()))
				if err != nil {
					t.Fatalf("Got(run) = %v; want the model's answer", err)
				}
				if res.Text != "Here is the summary." {
					t.Errorf("Got(answer) = %q; want %q", res.Text, "Here is the summary.")
				}
				types, texts := sentInline(t, srv)
				if want := [][]string{{xlsxType}, nil}; !slices.EqualFunc(types, want, slices.Equal) {
					t.Errorf("Got(inline types per request) = %q; want %q", types, want)
				}
				if want := []string{"Summarise the leads.", "[Attachment unavailable: leads.xlsx]"}; !slices.Equal(texts, want) {
					t.Errorf("Got(second request's user texts) = %q; want %q", texts, want)
				}
				if got := res.Input[0].Parts[1].(keel.FilePart); got.MediaType != xlsxType {
					t.Errorf("Got(stored file) = %q; want the xlsx kept", got.MediaType)
				}
			})
		})
	}
}

// TestE2EPDF: a PDF goes through in one request.
func TestE2EPDF(t *testing.T) {
	runBoth(t, func(t *testing.T, run func(*agent.Agent, []keel.Message) (*agent.Result, error)) {
		srv := googletest.NewServer(t, googletest.Options{Text: "A report.", Unsupported: []string{xlsxType}})
		pdf := keel.FilePart{Data: []byte("%PDF-1.4 report"), MediaType: "application/pdf", Filename: "report.pdf"}
		res, err := run(newAgent(t, srv), withFile(pdf))
		if err != nil || res.Text != "A report." {
			t.Fatalf("Got(run) = %v, %v; want the answer", res, err)
		}
		types, _ := sentInline(t, srv)
		if want := [][]string{{"application/pdf"}}; !slices.EqualFunc(types, want, slices.Equal) {
			t.Errorf("Got(inline types per request) = %q; want %q", types, want)
		}
	})
}

// failFirst answers the first request with rep, later ones normally.
func failFirst(rep providertest.Reply) googletest.Options {
	return googletest.Options{Text: "Recovered.", Respond: func(_ googletest.Request, n int) (providertest.Reply, bool) {
		return rep, n == 0
	}}
}

// TestE2ERetryable: 429 with Retry-After and 503 are sent again with the
// file kept.
func TestE2ERetryable(t *testing.T) {
	for name, rep := range map[string]providertest.Reply{
		"429": {Status: 429, Header: http.Header{"Retry-After": {"0"}}, Body: googletest.ErrorBody(429, "RESOURCE_EXHAUSTED", googletest.RateLimitedMessage)},
		"503": {Status: 503, Body: googletest.ErrorBody(503, "UNAVAILABLE", googletest.UnavailableMessage)},
	} {
		t.Run(name, func(t *testing.T) {
			runBoth(t, func(t *testing.T, run func(*agent.Agent, []keel.Message) (*agent.Result, error)) {
				srv := googletest.NewServer(t, failFirst(rep))
				res, err := run(newAgent(t, srv), withFile(leads()))
				if err != nil || res.Text != "Recovered." {
					t.Fatalf("Got(run) = %v; want the answer after a retry", err)
				}
				types, _ := sentInline(t, srv)
				if want := [][]string{{xlsxType}, {xlsxType}}; !slices.EqualFunc(types, want, slices.Equal) {
					t.Errorf("Got(inline types per request) = %q; want the file in both %q", types, want)
				}
			})
		})
	}
}

// TestE2EErrorsSurface: a 401 is never retried, and a 400 that has nothing
// to do with files, on a request without one, surfaces after one request.
func TestE2EErrorsSurface(t *testing.T) {
	for name, rep := range map[string]providertest.Reply{
		"401": {Status: 401, Body: googletest.ErrorBody(401, "UNAUTHENTICATED", googletest.UnauthenticatedMessage)},
		"400": {Status: 400, Body: googletest.ErrorBody(400, "INVALID_ARGUMENT", googletest.BadRequestMessage)},
	} {
		t.Run(name, func(t *testing.T) {
			runBoth(t, func(t *testing.T, run func(*agent.Agent, []keel.Message) (*agent.Result, error)) {
				srv := googletest.NewServer(t, failFirst(rep))
				_, err := run(newAgent(t, srv), []keel.Message{keel.UserText("hi")})
				var api *keel.APICallError
				if !errors.As(err, &api) || api.StatusCode != rep.Status || api.Body != rep.Body {
					t.Fatalf("Got(run error) = %v; want the %d APICallError", err, rep.Status)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("Got(requests) = %d; want 1", n)
				}
			})
		})
	}
}

// TestE2EToolRoundTrip: Gemini calls a tool (without an ID), the agent
// runs it, and the result goes back as a functionResponse with the call's
// made-up ID; the final answer comes back.
func TestE2EToolRoundTrip(t *testing.T) {
	weather := providertest.WeatherTool()
	runBoth(t, func(t *testing.T, run func(*agent.Agent, []keel.Message) (*agent.Result, error)) {
		srv := googletest.NewServer(t, googletest.Options{Text: "It is sunny.", Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
			if n > 0 {
				return providertest.Reply{}, false
			}
			if r.Stream {
				return providertest.Reply{Body: googletest.StreamToolCallBody("", "get_weather", `{"city":"Paris"}`), ContentType: "text/event-stream"}, true
			}
			return providertest.Reply{Body: googletest.ToolCallBody("", "get_weather", `{"city":"Paris"}`)}, true
		}})
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
		b, err := reqs[1].Decode()
		if err != nil {
			t.Fatal(err)
		}
		last := b.Contents[len(b.Contents)-1]
		fr := last.Parts[0].FunctionResponse
		wantID := "call_" + googletest.ResponseID + "_0"
		if fr == nil || fr.ID != wantID || fr.Name != "get_weather" || !strings.Contains(string(fr.Response), "sunny in Paris") {
			t.Errorf("Got(function response) = %+v; want id %s with the tool's result", fr, wantID)
		}
		if len(b.Tools) != 1 || b.Tools[0].FunctionDeclarations[0].Name != "get_weather" {
			t.Errorf("Got(tools) = %+v; want get_weather declared", b.Tools)
		}
	})
}
