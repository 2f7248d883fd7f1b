package openai_test

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
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/tool"
)

// The end-to-end tests run the agent, with its default error processors,
// on the OpenAI adapter against a local server speaking OpenAI's wire
// protocol. Only the stream-error retry processor is replaced, by one that
// waits a millisecond instead of 3 s.

func newAgent(t *testing.T, m keel.Model, tools ...tool.Tool) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{
		ID:    "assistant",
		Model: m,
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

// wire holds the answers of one API in one mode (generated or streamed).
type wire struct {
	api       string
	text      func(string) providertest.Reply
	toolCall  func(id, name, args string) providertest.Reply
	sentFiles func(testing.TB, []byte) []providertest.SentFile
	sentText  func(testing.TB, []byte) []string
}

type runFunc func(*agent.Agent, []keel.Message) (*agent.Result, error)

// runBoth runs the same check for a generated and a streamed run, on
// Chat Completions.
func runBoth(t *testing.T, check func(t *testing.T, w wire, run runFunc)) {
	runModes(t, openai.APIChat, check)
}

func runModes(t *testing.T, api string, check func(t *testing.T, w wire, run runFunc)) {
	w := wire{api: api, text: chatText, toolCall: chatToolCall, sentFiles: chatSentFiles, sentText: chatSentText}
	sw := wire{api: api, text: chatStreamText, toolCall: chatStreamToolCall, sentFiles: chatSentFiles, sentText: chatSentText}
	if api == openai.APIResponses {
		w = wire{api: api, text: responsesText, toolCall: responsesToolCall, sentFiles: responsesSentFiles, sentText: responsesSentText}
		sw = wire{api: api, text: responsesStreamText, toolCall: responsesStreamToolCall, sentFiles: responsesSentFiles, sentText: responsesSentText}
	}
	t.Run("generate", func(t *testing.T) {
		check(t, w, func(a *agent.Agent, in []keel.Message) (*agent.Result, error) {
			return a.Generate(context.Background(), in)
		})
	})
	t.Run("stream", func(t *testing.T) {
		check(t, sw, func(a *agent.Agent, in []keel.Message) (*agent.Result, error) {
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
	return keel.FilePart{Data: data, MediaType: providertest.XLSX, Filename: "leads.xlsx"}
}

func report() keel.FilePart {
	return keel.FilePart{Data: []byte("%PDF-1.4 quarterly report"), MediaType: "application/pdf", Filename: "report.pdf"}
}

func withFile(f keel.FilePart) []keel.Message {
	return []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Summarise the leads."}, f}}}
}

// sent returns, per request, the media types of the files it carried, and
// the user texts of the last request.
func sent(t *testing.T, w wire, s *providertest.Server) ([][]string, []string) {
	t.Helper()
	var types [][]string
	var texts []string
	for _, r := range s.Requests() {
		var ts []string
		for _, f := range w.sentFiles(t, r.Body) {
			ts = append(ts, f.MediaType)
		}
		types = append(types, ts)
		texts = w.sentText(t, r.Body)
	}
	return types, texts
}

func equalTypes(a, b [][]string) bool { return slices.EqualFunc(a, b, slices.Equal) }

// TestE2ESpreadsheetRefusedBeforeSending: Chat Completions (and the
// Responses API told to take PDFs only) cannot take an xlsx, so the
// adapter refuses it before sending, the unsupported-file handler puts a
// placeholder in its place, and exactly one request reaches the server,
// without the file.
func TestE2ESpreadsheetRefusedBeforeSending(t *testing.T) {
	for _, api := range []string{openai.APIChat, openai.APIResponses} {
		t.Run(api, func(t *testing.T) {
			runModes(t, api, func(t *testing.T, w wire, run runFunc) {
				s := providertest.NewServer(t, w.text("Here is the summary."))
				res, err := run(newAgent(t, model(t, s, openai.Options{API: api, OnlyPDFDocuments: true})), withFile(leads()))
				if err != nil || res.Text != "Here is the summary." {
					t.Fatalf("Got(run) = %v; want the model's answer", err)
				}
				types, texts := sent(t, w, s)
				if !equalTypes(types, [][]string{nil}) {
					t.Errorf("Got(file types per request) = %q; want one request without files", types)
				}
				if want := []string{"Summarise the leads.", "[Attachment unavailable: leads.xlsx]"}; !slices.Equal(texts, want) {
					t.Errorf("Got(user texts) = %q; want %q", texts, want)
				}
				if got := res.Input[0].Parts[1].(keel.FilePart); got.MediaType != providertest.XLSX {
					t.Errorf("Got(stored file) = %q; want the xlsx kept", got.MediaType)
				}
			})
		})
	}
}

// TestE2EPassThroughSpreadsheet: the Responses API with documents passed
// through sends the xlsx in one request; when the API rejects it with a
// 400, the handler retries once without it.
func TestE2EPassThroughSpreadsheet(t *testing.T) {
	runModes(t, openai.APIResponses, func(t *testing.T, w wire, run runFunc) {
		s := providertest.NewServer(t, w.text("Read the sheet."))
		res, err := run(newAgent(t, model(t, s, openai.Options{API: openai.APIResponses, OnlyPDFDocuments: false})), withFile(leads()))
		if err != nil || res.Text != "Read the sheet." {
			t.Fatalf("Got(run) = %v; want the answer", err)
		}
		if types, _ := sent(t, w, s); !equalTypes(types, [][]string{{providertest.XLSX}}) {
			t.Errorf("Got(file types per request) = %q; want the xlsx in one request", types)
		}

		s = providertest.NewServer(t, errorReply(providertest.FileRejected), w.text("Without the sheet."))
		res, err = run(newAgent(t, model(t, s, openai.Options{API: openai.APIResponses, OnlyPDFDocuments: false})), withFile(leads()))
		if err != nil || res.Text != "Without the sheet." {
			t.Fatalf("Got(run after a 400) = %v; want the answer", err)
		}
		types, texts := sent(t, w, s)
		if !equalTypes(types, [][]string{{providertest.XLSX}, nil}) {
			t.Errorf("Got(file types per request) = %q; want the xlsx, then nothing", types)
		}
		if want := []string{"Summarise the leads.", "[Attachment unavailable: leads.xlsx]"}; !slices.Equal(texts, want) {
			t.Errorf("Got(second request's user texts) = %q; want %q", texts, want)
		}
	})
}

// TestE2EPDF: a PDF goes through in one request.
func TestE2EPDF(t *testing.T) {
	runBoth(t, func(t *testing.T, w wire, run runFunc) {
		s := providertest.NewServer(t, w.text("A report."))
		res, err := run(newAgent(t, model(t, s, openai.Options{})), withFile(report()))
		if err != nil || res.Text != "A report." {
			t.Fatalf("Got(run) = %v; want the answer", err)
		}
		if types, _ := sent(t, w, s); !equalTypes(types, [][]string{{"application/pdf"}}) {
			t.Errorf("Got(file types per request) = %q; want the PDF in one request", types)
		}
	})
}

// TestE2ETransientErrorsKeepTheFile: 429 (with a Retry-After) and 503 are
// retried by the stream-error processor with the same request, PDF
// included.
func TestE2ETransientErrorsKeepTheFile(t *testing.T) {
	rateLimited := errorReply(providertest.RateLimited)
	rateLimited.Header = http.Header{"Retry-After-Ms": {"5"}, "X-Ratelimit-Reset-Tokens": {"5ms"}}
	for name, rep := range map[string]providertest.Reply{"429": rateLimited, "503": errorReply(providertest.Unavailable)} {
		t.Run(name, func(t *testing.T) {
			runBoth(t, func(t *testing.T, w wire, run runFunc) {
				s := providertest.NewServer(t, rep, w.text("Recovered."))
				res, err := run(newAgent(t, model(t, s, openai.Options{})), withFile(report()))
				if err != nil || res.Text != "Recovered." {
					t.Fatalf("Got(run) = %v; want the answer after a retry", err)
				}
				if types, _ := sent(t, w, s); !equalTypes(types, [][]string{{"application/pdf"}, {"application/pdf"}}) {
					t.Errorf("Got(file types per request) = %q; want the PDF in both requests", types)
				}
			})
		})
	}
}

// TestE2EFinalErrorsSurface: a 401, or a 400 that has nothing to do with
// files on a request without one, surfaces after one request.
func TestE2EFinalErrorsSurface(t *testing.T) {
	for _, kind := range []providertest.ErrorKind{providertest.Unauthorized, providertest.BadRequest} {
		t.Run(kind.String(), func(t *testing.T) {
			runBoth(t, func(t *testing.T, w wire, run runFunc) {
				rep := errorReply(kind)
				s := providertest.NewServer(t, rep, w.text("never"))
				_, err := run(newAgent(t, model(t, s, openai.Options{})), []keel.Message{keel.UserText("hi")})
				var ae *keel.APICallError
				if !errors.As(err, &ae) || ae.StatusCode != rep.Status || !isSDKError(err) {
					t.Errorf("Got(run) = %v; want the %d APICallError, reaching *openai.Error", err, rep.Status)
				}
				if n := len(s.Requests()); n != 1 {
					t.Errorf("Got(requests) = %d; want 1", n)
				}
			})
		})
	}
}

// TestE2EToolRoundTrip: the model calls a tool, gets its result, and
// answers, on both APIs.
func TestE2EToolRoundTrip(t *testing.T) {
	weather := providertest.WeatherTool()
	for _, api := range []string{openai.APIChat, openai.APIResponses} {
		t.Run(api, func(t *testing.T) {
			runModes(t, api, func(t *testing.T, w wire, run runFunc) {
				s := providertest.NewServer(t, w.toolCall("call_7", "get_weather", `{"city":"Lyon"}`), w.text("It is sunny in Lyon."))
				res, err := run(newAgent(t, model(t, s, openai.Options{API: api}), weather), []keel.Message{keel.UserText("Weather in Lyon?")})
				if err != nil || res.Text != "It is sunny in Lyon." {
					t.Fatalf("Got(run) = %v; want the final answer", err)
				}
				reqs := s.Requests()
				if len(reqs) != 2 {
					t.Fatalf("Got(requests) = %d; want 2", len(reqs))
				}
				second := string(reqs[1].Body)
				for _, want := range []string{`"call_7"`, `sunny in Lyon`, `"get_weather"`} {
					if !strings.Contains(second, want) {
						t.Errorf("Got(second request) = %.400s; want it to contain %s", second, want)
					}
				}
			})
		})
	}
}
