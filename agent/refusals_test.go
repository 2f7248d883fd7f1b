package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/workspace"
)

// refusingGemini is a Gemini model on a local server that answers office
// files with the real 502.
func refusingGemini(tb testing.TB) (keel.Model, *googletest.Server) {
	tb.Helper()
	srv := googletest.NewServer(tb, googletest.Options{Internal: []string{xlsxType}})
	m, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		tb.Fatal(err)
	}
	return m, srv
}

// rememberingAgent is an agent on model whose threads and refusals are
// kept in store, with keel's converters and a sandbox.
func rememberingAgent(tb testing.TB, model keel.Model, store *memory.InMemory, conv processor.FileConverter, remember bool) *agent.Agent {
	tb.Helper()
	cfg := agent.Config{ID: "assistant", Model: model, Memory: store, Files: processor.UnsupportedFileOptions{Converters: conv},
		Workspace: workspace.New(keeltest.NewSandbox("sb")), Logger: slog.New(slog.DiscardHandler)}
	if remember {
		rr, err := processor.NewRememberedRefusals(store, processor.RefusalOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		cfg.Files.Refusals = rr
	}
	a, err := agent.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// TestRememberedRefusalAcrossTurns checks the calls a thread costs once
// a refusal is remembered: the first turn two, every later turn and a new
// thread one, the model given the sheet's text each time.
func TestRememberedRefusalAcrossTurns(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model, srv := refusingGemini(t)
		a := rememberingAgent(t, model, memory.NewInMemory(), convert.Default(), true)
		book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
		file := keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"}
		turns := []struct {
			thread string
			msg    keel.Message
			calls  int
		}{
			{"t1", userMsg(keel.TextPart{Text: "Count"}, file), 2},
			{"t1", keel.UserText("Again"), 1},
			{"t1", keel.UserText("Once more"), 1},
			{"t2", userMsg(keel.TextPart{Text: "Count"}, file), 1},
		}
		total := 0
		for i, turn := range turns {
			res, _, err := m.run(context.Background(), a, []keel.Message{turn.msg}, agent.WithThread(turn.thread), agent.WithResource("u"))
			if err != nil {
				t.Fatalf("turn %d: %v", i+1, err)
			}
			total += turn.calls
			if got := len(srv.Requests()); got != total || res.Steps[0].Attempts != turn.calls {
				t.Fatalf("Got(turn %d) = %d requests in all, %d attempts; want %d, %d", i+1, got, res.Steps[0].Attempts, total, turn.calls)
			}
			body, _ := srv.Requests()[total-1].Decode()
			if texts := strings.Join(body.UserTexts(), "\n"); len(body.InlineMediaTypes()) != 0 || !strings.Contains(texts, "Name,City\nAda,Berlin") {
				t.Errorf("Got(turn %d's last request) = %q, files %q; want the sheet's text, no file", i+1, texts, body.InlineMediaTypes())
			}
		}
	})
}

// BenchmarkRefusedFileThread counts the model calls of a five-turn
// thread whose first message holds a workbook the model answers with
// Gemini's 502, as the reference framework's handler does it (every turn
// sends the file, is refused and retried) and with refusals remembered,
// and the conversions per run.
func BenchmarkRefusedFileThread(b *testing.B) {
	book := officetest.Workbook(b, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
	for _, remember := range []bool{false, true} {
		b.Run(fmt.Sprintf("remember=%v", remember), func(b *testing.B) {
			model, srv := refusingGemini(b)
			conv := &countingConverter{next: convert.Default()}
			var calls, runs int
			for i := 0; b.Loop(); i++ {
				a := rememberingAgent(b, model, memory.NewInMemory(), conv, remember)
				before := len(srv.Requests())
				thread := fmt.Sprint("t", i)
				for turn := range 5 {
					msg := keel.UserText(fmt.Sprint("question ", turn))
					if turn == 0 {
						msg.Parts = append(msg.Parts, keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"})
					}
					if _, err := a.Generate(context.Background(), []keel.Message{msg}, agent.WithThread(thread), agent.WithResource("u")); err != nil {
						b.Fatal(err)
					}
					runs++
				}
				calls = len(srv.Requests()) - before
			}
			b.ReportMetric(float64(calls), "model-calls/thread")
			b.ReportMetric(float64(conv.calls.Load())/float64(runs), "conversions/run")
		})
	}
}
