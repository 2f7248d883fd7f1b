package agent_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

func TestDefaultTitle(t *testing.T) {
	long := "Please compare the quarterly revenue of our Berlin and Munich offices and tell me which grew faster since last spring"
	reminder := keel.UserText("<system-reminder>continue</system-reminder>")
	reminder.Metadata = map[string]any{keel.MetadataSystemReminder: true}
	cases := []struct {
		name string
		msgs []keel.Message
		want string
	}{
		{"short", []keel.Message{keel.UserText("How many leads are from Berlin?")}, "How many leads are from Berlin?"},
		{"one line", []keel.Message{keel.UserText("  Line one\n\nline\ttwo  ")}, "Line one line two"},
		{"cut at a word", []keel.Message{keel.UserText(long)}, "Please compare the quarterly revenue of our Berlin and Munich offices and tell…"},
		{"one long word", []keel.Message{keel.UserText(strings.Repeat("x", 100))}, strings.Repeat("x", 79) + "…"},
		{"exactly 80", []keel.Message{keel.UserText(strings.Repeat("é", 80))}, strings.Repeat("é", 80)},
		{"files only", []keel.Message{userMsg(xlsx("leads.xlsx"), xlsx("q3.xlsx"))}, "leads.xlsx, q3.xlsx"},
		{"the first user message", []keel.Message{keel.SystemText("sys"), reminder, keel.UserText("first"), keel.UserText("second")}, "first"},
		{"nothing to name it by", []keel.Message{userMsg(keel.FilePart{Data: []byte("x"), MediaType: "image/png"})}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := agent.DefaultTitle(tc.msgs)
			if got != tc.want || utf8.RuneCountInString(got) > agent.MaxTitleLength {
				t.Fatalf("Got(DefaultTitle) = %q (%d characters); want %q", got, utf8.RuneCountInString(got), tc.want)
			}
		})
	}
}

// A new thread is titled by its first user text; one made before (through
// the API) without a title gets it at its first turn; a title the caller
// gave is kept; later turns change nothing.
func TestThreadTitles(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		ctx := context.Background()
		mem := memory.NewInMemory()
		model := keeltest.NewModel(keelReply{Text: "ok"})
		model.RepeatLast = true
		a := must(agent.New(agent.Config{ID: "a", Model: model, Memory: mem}))
		must(mem.CreateThread(ctx, memory.Thread{ID: "untitled", ResourceID: "r"}))
		must(mem.CreateThread(ctx, memory.Thread{ID: "named", ResourceID: "r", Title: "Leads"}))
		for _, id := range []string{"new", "untitled", "named"} {
			for _, q := range []string{"How many leads are from Berlin?", "And from Munich?"} {
				if _, _, err := m.run(ctx, a, []keel.Message{keel.UserText(q)}, agent.WithThread(id), agent.WithResource("r")); err != nil {
					t.Fatal(err)
				}
			}
		}
		for id, want := range map[string]string{"new": "How many leads are from Berlin?", "untitled": "How many leads are from Berlin?", "named": "Leads"} {
			if got := must(mem.GetThread(ctx, "r", id)).Title; got != want {
				t.Errorf("Got(title of %s) = %q; want %q", id, got, want)
			}
		}
	})
}

// With GenerateTitle, the model titles a new thread after its first turn,
// with a call of its own; a title the caller gave is kept, and later
// turns ask for none.
func TestGenerateTitle(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		ctx := context.Background()
		mem := memory.NewInMemory()
		model := keeltest.NewModel(
			keelReply{Text: "There are 12."},
			keelReply{Text: "\"Berlin leads count\"\nextra line"},
			keelReply{Text: "There are 3."},
			keelReply{Text: "Answer in the named thread."},
		)
		a := must(agent.New(agent.Config{ID: "a", Instructions: "Be brief.", Model: model, Memory: mem, GenerateTitle: true}))
		res, events, err := m.run(ctx, a, []keel.Message{keel.UserText("How many leads are from Berlin?")}, agent.WithThread("t"), agent.WithResource("r"))
		if err != nil || res.Text != "There are 12." {
			t.Fatalf("Got(first turn) = %+v, %v; want its answer", res, err)
		}
		if events != nil && events[len(events)-1].Type != agent.EventFinish {
			t.Errorf("Got(last event) = %s; want finish", events[len(events)-1].Type)
		}
		if got := must(mem.GetThread(ctx, "r", "t")).Title; got != "Berlin leads count" {
			t.Errorf("Got(title) = %q; want the model's, Berlin leads count", got)
		}
		titleCall := model.Prompts()[1]
		if len(titleCall) != 2 || titleCall[0].Role != keel.RoleSystem || !strings.Contains(titleCall[0].Text(), "title") ||
			titleCall[1].Text() != "How many leads are from Berlin?" {
			t.Errorf("Got(title call prompt) = %+v; want the title instructions and the first user text", titleCall)
		}
		must(a.Generate(ctx, []keel.Message{keel.UserText("And Munich?")}, agent.WithThread("t"), agent.WithResource("r")))
		must(mem.CreateThread(ctx, memory.Thread{ID: "named", ResourceID: "r", Title: "Leads"}))
		must(a.Generate(ctx, []keel.Message{keel.UserText("Hello")}, agent.WithThread("named"), agent.WithResource("r")))
		if n := model.Calls(); n != 4 {
			t.Errorf("Got(model calls) = %d; want 4: no title call after the first turn, none for a named thread", n)
		}
		if got := must(mem.GetThread(ctx, "r", "named")).Title; got != "Leads" {
			t.Errorf("Got(named thread's title) = %q; want Leads", got)
		}
	})
}

// A failed title call never fails the turn: the thread keeps its default
// title, and the failure is logged.
func TestGenerateTitleFailure(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		ctx := context.Background()
		mem := memory.NewInMemory()
		model := keeltest.NewModel(keelReply{Text: "Answer."}, keelReply{Err: errors.New("model overloaded")})
		logs := &records{}
		a := must(agent.New(agent.Config{ID: "a", Model: model, Memory: mem, GenerateTitle: true, Logger: slog.New(logs)}))
		res, _, err := m.run(ctx, a, []keel.Message{keel.UserText("Hi there")}, agent.WithThread("t"), agent.WithResource("r"))
		if err != nil || res.Text != "Answer." {
			t.Fatalf("Got(turn) = %v, %v; want the answer despite the failed title", res, err)
		}
		if got := must(mem.GetThread(ctx, "r", "t")).Title; got != "Hi there" {
			t.Errorf("Got(title) = %q; want the default, Hi there", got)
		}
		if !logs.has("model overloaded") {
			t.Errorf("Got(logs) = %v; want the title failure logged", logs.all())
		}
	})
}

// records is a slog.Handler that keeps each record's message and error.
type records struct {
	mu    sync.Mutex
	lines []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Message
	rec.Attrs(func(a slog.Attr) bool { line += " " + a.Key + "=" + a.Value.String(); return true })
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, line)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }
func (r *records) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}
func (r *records) has(s string) bool {
	for _, l := range r.all() {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// With a list of models, the title comes from the first that answers: a
// thread whose first model is down is still titled.
func TestGenerateTitleFallsBack(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewInMemory()
	down := always("down", keelReply{Err: unavailable503()})
	up := keeltest.NewModel(keelReply{Text: "Answer."}, keelReply{Text: "Greeting thread"})
	a := must(agent.New(agent.Config{ID: "a", Models: []agent.ModelEntry{{Model: down, MaxRetries: -1}, {Model: named{up, "up"}}},
		Memory: mem, GenerateTitle: true}))
	res, err := a.Generate(ctx, []keel.Message{keel.UserText("Hi there")}, agent.WithThread("t"), agent.WithResource("r"))
	if err != nil || res.Text != "Answer." {
		t.Fatalf("Got(turn) = %v, %v; want the second model's answer", res, err)
	}
	if got := must(mem.GetThread(ctx, "r", "t")).Title; got != "Greeting thread" {
		t.Errorf("Got(title) = %q; want the second model's title, Greeting thread", got)
	}
	if down.Calls() != 2 || up.Calls() != 2 {
		t.Errorf("Got(calls) = %d down, %d up; want the turn and the title tried on each", down.Calls(), up.Calls())
	}
}
