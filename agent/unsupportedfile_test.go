package agent_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

func newAgent(t *testing.T, cfg agent.Config) *agent.Agent {
	t.Helper()
	if cfg.ID == "" {
		cfg.ID = "assistant"
	}
	if cfg.Logger == nil && !testing.Verbose() {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatalf("agent.New: %v", err)
	}
	return a
}

// fastRetry replaces the default stream-error retry processor (3 s delay)
// so tests of transient errors run quickly.
func fastRetry() processor.Processor {
	return processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 2, Delay: time.Millisecond})
}

func TestRefusedFileIsReplacedByPlaceholder(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := keeltest.NewModel(
			keelReply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType}},
			keelReply{Text: "I could not open the spreadsheet."},
		)
		a := newAgent(t, agent.Config{Model: model})
		res, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Read these"}, xlsx("leads.xlsx"))})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if got, want := model.Calls(), 2; got != want {
			t.Fatalf("Got(calls) = %d; want %d", got, want)
		}
		second := model.Prompts()[1]
		if got := countFiles(second); got != 0 {
			t.Errorf("Got(files in 2nd prompt) = %d; want 0", got)
		}
		want := []string{"Read these", "[Attachment unavailable: leads.xlsx]"}
		if got := userParts(second); !slices.Equal(got, want) {
			t.Errorf("Got(user parts of 2nd prompt) = %q; want %q", got, want)
		}
		if got := userParts(model.Prompts()[0]); !slices.Equal(got, []string{"Read these", "file:" + xlsxType}) {
			t.Errorf("Got(user parts of 1st prompt) = %q; the file must go to the model unchanged first", got)
		}
		if res.Text != "I could not open the spreadsheet." {
			t.Errorf("Got(text) = %q", res.Text)
		}
		if len(res.Recoveries) != 1 || res.Recoveries[0].Action != "placeholder" || res.Recoveries[0].Files[0].Name != "leads.xlsx" {
			t.Errorf("Got(recoveries) = %+v; want one placeholder for leads.xlsx", res.Recoveries)
		}
	})
}

func TestPDFAloneGoesThroughInOneCall(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := refusingModel("read it")
		a := newAgent(t, agent.Config{Model: model})
		pdf := keel.FilePart{Data: []byte("%PDF-1.7"), MediaType: "application/pdf", Filename: "a.pdf"}
		if _, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Read"}, pdf)}); err != nil {
			t.Fatalf("run: %v", err)
		}
		if got := model.Calls(); got != 1 {
			t.Errorf("Got(calls) = %d; want 1", got)
		}
		if got := countFiles(model.Prompts()[0]); got != 1 {
			t.Errorf("Got(files sent) = %d; want 1", got)
		}
	})
}

func TestRetryKeepsReadableFiles(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := refusingModel("ok")
		a := newAgent(t, agent.Config{Model: model})
		input := userMsg(
			keel.TextPart{Text: "Compare"},
			xlsx("leads.xlsx"),
			keel.FilePart{Data: []byte("%PDF-1.7"), MediaType: "application/pdf", Filename: "report.pdf"},
			keel.FilePart{Data: []byte("\x89PNG"), MediaType: "image/png", Filename: "chart.png"},
			keel.FilePart{Data: []byte("a,b\n1,2\n"), MediaType: "text/csv", Filename: "data.csv"},
			keel.FilePart{Data: []byte("PK\x03\x04zip"), MediaType: "application/zip"},
		)
		if _, _, err := m.run(context.Background(), a, []keel.Message{input}); err != nil {
			t.Fatalf("run: %v", err)
		}
		if got := model.Calls(); got != 2 {
			t.Fatalf("Got(calls) = %d; want 2", got)
		}
		want := []string{
			"Compare",
			"[Attachment unavailable: leads.xlsx]",
			"file:application/pdf",
			"file:image/png",
			"file:text/csv",
			"[Attachment unavailable: application/zip]",
		}
		if got := userParts(model.Prompts()[1]); !slices.Equal(got, want) {
			t.Errorf("Got(user parts of 2nd prompt) = %q; want %q", got, want)
		}
	})
}

func TestStoredThreadKeepsFileAndLaterTurnsWork(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		ctx := context.Background()
		store := memory.NewInMemory()
		model := refusingModel("answer")
		model.RepeatLast = true
		a := newAgent(t, agent.Config{Model: model, Memory: store})
		opts := []agent.RunOption{agent.WithThread("thread-1"), agent.WithResource("user-1")}
		file := xlsx("leads.xlsx")

		turns := []keel.Message{
			userMsg(keel.TextPart{Text: "Read these"}, file),
			keel.UserText("And now?"),
			keel.UserText("Still there?"),
		}
		for i, in := range turns {
			before := model.Calls()
			if _, _, err := m.run(ctx, a, []keel.Message{in}, opts...); err != nil {
				t.Fatalf("turn %d: %v", i+1, err)
			}
			if got := model.Calls() - before; got != 2 {
				t.Errorf("turn %d: Got(calls) = %d; want 2 (the stored file is refused, then replaced)", i+1, got)
			}
		}
		page, err := store.ListMessages(ctx, "user-1", "thread-1", memory.ListMessagesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(page.Messages); got != 6 {
			t.Fatalf("Got(stored messages) = %d; want 6", got)
		}
		stored, ok := page.Messages[0].Parts[1].(keel.FilePart)
		if !ok {
			t.Fatalf("Got(stored part) = %T; want the file, unchanged", page.Messages[0].Parts[1])
		}
		if string(stored.Data) != string(file.Data) || stored.Filename != "leads.xlsx" || stored.MediaType != xlsxType {
			t.Errorf("Got(stored file) = %q %q %q; want the file as sent", stored.Filename, stored.MediaType, stored.Data)
		}
		last := model.Prompts()[model.Calls()-1]
		if got := userParts(last); !slices.Contains(got, "[Attachment unavailable: leads.xlsx]") || countFiles(last) != 0 {
			t.Errorf("Got(last prompt user parts) = %q; want the history file replaced", got)
		}
	})
}

// http502 answers like Gemini does for some file types: a 502 that says
// nothing about the file.
func http502(retryable bool) error {
	h := http.Header{}
	if !retryable {
		h.Set("X-Should-Retry", "false")
	}
	return &keel.APICallError{
		Provider: "google", StatusCode: 502, Header: h, Retryable: retryable,
		Body:    `{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}`,
		Message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
	}
}

// failWhileFile fails with err while the prompt holds a file that is not
// readable (or any file, with anyFile), and answers otherwise.
func failWhileFile(err error, anyFile bool) keelReply {
	return keelReply{Respond: func(req *keel.Request) keelReply {
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				if f, ok := p.(keel.FilePart); ok && (anyFile || !keel.IsReadable(f.MediaType)) {
					return keelReply{Err: err}
				}
			}
		}
		return keelReply{Text: "answer"}
	}}
}

func TestHTTPRejectionRetriedWithoutFile(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		ctx := context.Background()
		store := memory.NewInMemory()
		model := keeltest.NewModel(keelReply{Text: "stored it"}, failWhileFile(http502(true), false))
		model.RepeatLast = true
		a := newAgent(t, agent.Config{Model: model, Memory: store})
		opts := []agent.RunOption{agent.WithThread("t-502"), agent.WithResource("u")}
		// The first turn stores the xlsx (this model took it); the second
		// turn's model answers 502 while the history holds it.
		if _, _, err := m.run(ctx, a, []keel.Message{userMsg(keel.TextPart{Text: "keep"}, xlsx("leads.xlsx"))}, opts...); err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.run(ctx, a, []keel.Message{keel.UserText("sum it up")}, opts...); err != nil {
			t.Fatalf("second turn: %v", err)
		}
		if got := model.Calls(); got != 3 {
			t.Errorf("Got(calls) = %d; want 3 (1 + a 502 retried once without the file)", got)
		}
		if got := countFiles(model.Prompts()[2]); got != 0 {
			t.Errorf("Got(files in retried prompt) = %d; want 0", got)
		}
	})
}

func TestHTTPRejectionWithOnlyPDFSurfaces(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		// x-should-retry: false keeps the stream-error retry out of it, so
		// this shows the unsupported-file handler alone leaves it.
		model := keeltest.NewModel(failWhileFile(http502(false), true))
		model.RepeatLast = true
		a := newAgent(t, agent.Config{Model: model})
		pdf := keel.FilePart{Data: []byte("%PDF"), MediaType: "application/pdf", Filename: "a.pdf"}
		_, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "x"}, pdf)})
		var apiErr *keel.APICallError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 {
			t.Fatalf("Got(err) = %v; want the 502 APICallError unchanged", err)
		}
		if got := model.Calls(); got != 1 {
			t.Errorf("Got(calls) = %d; want 1", got)
		}
	})
}

func TestRetryableStatusesLeftToStreamErrorRetry(t *testing.T) {
	for _, status := range []int{408, 409, 429, 503, 504} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				transient := &keel.APICallError{Provider: "openai", StatusCode: status, Retryable: true, Message: "try later"}
				model := keeltest.NewModel(keelReply{Err: transient}, keelReply{Text: "ok"})
				a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{fastRetry()}})
				res, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "x"}, xlsx("leads.xlsx"))})
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				if got := model.Calls(); got != 2 {
					t.Fatalf("Got(calls) = %d; want 2", got)
				}
				if got := countFiles(model.Prompts()[1]); got != 1 {
					t.Errorf("Got(files in retried prompt) = %d; want 1 (same request, file included)", got)
				}
				if len(res.Recoveries) != 0 {
					t.Errorf("Got(recoveries) = %+v; want none from the unsupported-file handler", res.Recoveries)
				}
			})
		})
	}
}

func TestRetryable502WithPDFIsRetriedWithFile(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := keeltest.NewModel(keelReply{Err: http502(true)}, keelReply{Text: "ok"})
		a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{fastRetry()}})
		pdf := keel.FilePart{Data: []byte("%PDF"), MediaType: "application/pdf", Filename: "a.pdf"}
		if _, _, err := m.run(context.Background(), a, []keel.Message{userMsg(pdf)}); err != nil {
			t.Fatal(err)
		}
		if got := countFiles(model.Prompts()[1]); model.Calls() != 2 || got != 1 {
			t.Errorf("Got(calls, files in retry) = %d, %d; want 2, 1", model.Calls(), got)
		}
	})
}

func TestRefusalsThatSurface(t *testing.T) {
	refusal := &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType}
	tests := []struct {
		name      string
		cfg       agent.Config
		replies   []keelReply
		wantCalls int
	}{
		{"no media type named", agent.Config{}, []keelReply{{Err: &keel.UnsupportedFunctionalityError{Functionality: "tool choice type: required"}}}, 1},
		{"refusal persists", agent.Config{}, []keelReply{{Err: refusal}, {Err: refusal}, {Text: "never"}}, 2},
		{"defaults off", agent.Config{DisableDefaultErrorProcessors: true}, []keelReply{{Err: refusal}, {Text: "never"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				model := keeltest.NewModel(tt.replies...)
				cfg := tt.cfg
				cfg.Model = model
				a := newAgent(t, cfg)
				_, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "x"}, xlsx("leads.xlsx"))})
				var uf *keel.UnsupportedFunctionalityError
				if !errors.As(err, &uf) {
					t.Fatalf("Got(err) = %v; want the UnsupportedFunctionalityError", err)
				}
				if got := model.Calls(); got != tt.wantCalls {
					t.Errorf("Got(calls) = %d; want %d", got, tt.wantCalls)
				}
			})
		})
	}
}

func TestRefusedFileUploadedToSandbox(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		sb := keeltest.NewSandbox("sb")
		model := refusingModel("uploaded")
		a := newAgent(t, agent.Config{Model: model, Memory: memory.NewInMemory(), Workspace: workspace.New(sb)})
		file := xlsx("leads.xlsx")
		res, events, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Read"}, file)},
			agent.WithThread("thread-1"), agent.WithResource("user-1"))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(file.Data)
		rel := "uploads/thread-1/" + hex.EncodeToString(sum[:]) + ".xlsx"
		writes := sb.Writes()
		var dataWrites int
		for _, w := range writes {
			if w.Len == len(file.Data) && string(w.Data) == string(file.Data) {
				dataWrites++
			}
		}
		if dataWrites != 1 {
			t.Errorf("Got(writes of the file's bytes) = %d (%+v); want 1", dataWrites, writes)
		}
		if got := sb.Files()[rel]; string(got) != string(file.Data) {
			t.Errorf("Got(sandbox %s) = %q; want the file's bytes", rel, got)
		}
		note := strings.Join([]string{
			"[File uploaded to the sandbox]",
			"path: /home/user/" + rel,
			"name: leads.xlsx",
			"type: " + xlsxType,
			fmt.Sprintf("size: %d bytes", len(file.Data)),
		}, "\n")
		if got := userParts(model.Prompts()[1]); !slices.Equal(got, []string{"Read", note}) {
			t.Errorf("Got(user parts of 2nd prompt) = %q; want the upload note %q", got, note)
		}
		if len(res.Recoveries) != 1 || res.Recoveries[0].Action != "uploaded" || res.Recoveries[0].Files[0].Path != "/home/user/"+rel {
			t.Errorf("Got(recoveries) = %+v; want one upload", res.Recoveries)
		}
		if m.name == "stream" {
			var seen bool
			for _, ev := range events {
				seen = seen || ev.Type == agent.EventRecovery && ev.Recovery.Action == "uploaded"
			}
			if !seen {
				t.Errorf("Got(no recovery event); want one telling the file was uploaded")
			}
		}
	})
}

func TestUploadFailuresLeavePlaceholder(t *testing.T) {
	failing := keeltest.NewSandbox("full")
	failing.FailWrites(errors.New("disk full"))
	tests := []struct {
		name string
		ws   *workspace.Workspace
	}{
		{"resolver returns no sandbox", workspace.NewResolved(workspace.ResolverFunc(func(context.Context, workspace.Scope) (workspace.Sandbox, error) {
			return nil, nil
		}))},
		{"write fails", workspace.New(failing)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				model := refusingModel("still answered")
				a := newAgent(t, agent.Config{Model: model, Workspace: tt.ws})
				res, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Read"}, xlsx("leads.xlsx"))})
				if err != nil {
					t.Fatal(err)
				}
				if res.Text != "still answered" {
					t.Errorf("Got(text) = %q; want the turn to answer", res.Text)
				}
				if got := userParts(model.Prompts()[1]); !slices.Equal(got, []string{"Read", "[Attachment unavailable: leads.xlsx]"}) {
					t.Errorf("Got(user parts) = %q; want the placeholder", got)
				}
			})
		})
	}
	if n := len(failing.Files()); n != 0 {
		t.Errorf("Got(files in failing sandbox) = %d; want 0", n)
	}
}

func TestHostileFileNamesAndData(t *testing.T) {
	big := make([]byte, workspace.MaxUploadSize+1)
	tests := []struct {
		name string
		file keel.FilePart
		want string
	}{
		{"ansi and control characters", keel.FilePart{Data: []byte("x"), MediaType: "application/zip", Filename: "\x1b[31mevil\x1b[0m\x07.zip"},
			"[Attachment unavailable: evil.zip]"},
		{"10 MiB + 1 byte", keel.FilePart{Data: big, MediaType: xlsxType, Filename: "big.xlsx"},
			"[File not uploaded]\nname: big.xlsx\nreason: File \"big.xlsx\" is 10485761 bytes, over the 10485760 byte limit."},
		{"undecodable base64", keel.FilePart{URL: "data:" + xlsxType + ";base64,!!!not base64!!!", MediaType: xlsxType, Filename: "bad.xlsx"},
			"[File not uploaded]\nname: bad.xlsx\nreason: File \"bad.xlsx\" has inline data that cannot be decoded."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				sb := keeltest.NewSandbox("sb")
				model := refusingModel("ok")
				a := newAgent(t, agent.Config{Model: model, Workspace: workspace.New(sb)})
				if tt.name == "ansi and control characters" {
					a = newAgent(t, agent.Config{Model: model})
				}
				if _, _, err := m.run(context.Background(), a, []keel.Message{userMsg(tt.file)}); err != nil {
					t.Fatal(err)
				}
				if got := userParts(model.Prompts()[1]); !slices.Equal(got, []string{tt.want}) {
					t.Errorf("Got(user parts) = %q; want %q", got, tt.want)
				}
				if n := len(sb.Files()); n != 0 {
					t.Errorf("Got(files in sandbox) = %d; want 0", n)
				}
			})
		})
	}
}
