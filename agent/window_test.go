package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// history returns the history of a prompt: what is between the system
// message and the turn's one input message.
func history(t *testing.T, prompt []keel.Message) []keel.Message {
	t.Helper()
	if len(prompt) < 2 || prompt[0].Role != keel.RoleSystem {
		t.Fatalf("Got(prompt) = %d messages; want the instructions first", len(prompt))
	}
	return prompt[1 : len(prompt)-1]
}

// A 300-turn thread: every prompt holds at most the window of 10 history
// messages, however long the thread grows, and the last one exactly the
// thread's last 10.
func TestWindowLongThread(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := keeltest.NewModel(keelReply{Respond: func(req *keel.Request) keelReply {
			return keelReply{Text: "answer to " + req.Messages[len(req.Messages)-1].Text()}
		}})
		model.RepeatLast = true
		mem := memory.NewInMemory()
		a := must(agent.New(agent.Config{ID: "a", Instructions: "Be brief.", Model: model, Memory: mem}))
		ctx := context.Background()
		const turns = 300
		for i := range turns {
			if _, _, err := m.run(ctx, a, []keel.Message{keel.UserText(fmt.Sprint("question ", i))}, agent.WithThread("long"), agent.WithResource("r")); err != nil {
				t.Fatalf("turn %d: %v", i, err)
			}
		}
		prompts := model.Prompts()
		for i, p := range prompts {
			if h := history(t, p); len(h) > agent.DefaultLastMessages {
				t.Fatalf("Got(turn %d history) = %d messages; want at most %d", i, len(h), agent.DefaultLastMessages)
			}
		}
		last := history(t, prompts[turns-1])
		if len(last) != 10 || last[0].Text() != "question 294" || last[9].Text() != "answer to question 298" {
			t.Errorf("Got(last history) = %d messages from %q to %q; want 10, question 294 to the answer to 298", len(last), last[0].Text(), last[len(last)-1].Text())
		}
		if got := must(mem.ListMessages(ctx, "r", "long", memory.ListMessagesOptions{PerPage: 1})).Total; got != 2*turns {
			t.Errorf("Got(stored messages) = %d; want %d: the window limits what is sent, not what is kept", got, 2*turns)
		}
	})
}

// seedThread stores n messages, alternately user and assistant, in
// resource r's thread id.
func seedThread(t *testing.T, mem memory.Store, id string, n int) {
	t.Helper()
	must(mem.CreateThread(context.Background(), memory.Thread{ID: id, ResourceID: "r"}))
	msgs := make([]keel.Message, n)
	for i := range msgs {
		msgs[i] = keel.UserText(fmt.Sprint("m", i))
		if i%2 == 1 {
			msgs[i] = assistantText(fmt.Sprint("m", i))
		}
	}
	must(mem.SaveMessages(context.Background(), "r", id, msgs))
}

// The window comes from the run (WithLastMessages), else the agent's
// Config.LastMessages, else 10; AllMessages sends the whole thread.
func TestWindowSizes(t *testing.T) {
	cases := []struct {
		name   string
		config int
		opt    []agent.RunOption
		want   int
	}{
		{"default", 0, nil, 10},
		{"agent's", 4, nil, 4},
		{"run's", 0, []agent.RunOption{agent.WithLastMessages(4)}, 4},
		{"run's over agent's", 20, []agent.RunOption{agent.WithLastMessages(3)}, 3},
		{"run's all", 4, []agent.RunOption{agent.WithLastMessages(agent.AllMessages)}, 50},
		{"agent's all", agent.AllMessages, nil, 50},
		{"more than the thread", 0, []agent.RunOption{agent.WithLastMessages(500)}, 50},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := keeltest.NewModel(keelReply{Text: "ok"})
			mem := memory.NewInMemory()
			seedThread(t, mem, "t", 50)
			a := must(agent.New(agent.Config{ID: "a", Instructions: "x", Model: model, Memory: mem, LastMessages: tc.config}))
			opts := append([]agent.RunOption{agent.WithThread("t"), agent.WithResource("r")}, tc.opt...)
			must(a.Generate(context.Background(), []keel.Message{keel.UserText("now")}, opts...))
			h := history(t, model.Prompts()[0])
			if len(h) != tc.want || h[len(h)-1].Text() != "m49" {
				t.Fatalf("Got(history) = %d messages ending %q; want the last %d", len(h), h[len(h)-1].Text(), tc.want)
			}
		})
	}
}

// toolThread stores a thread whose end is a tool step: u0 a0 u1
// a1(call c1) tool(result c1) a2.
func toolThread(t *testing.T, mem memory.Store) {
	t.Helper()
	must(mem.CreateThread(context.Background(), memory.Thread{ID: "tools", ResourceID: "r"}))
	must(mem.SaveMessages(context.Background(), "r", "tools", []keel.Message{
		keel.UserText("u0"), assistantText("a0"), keel.UserText("u1"),
		{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "c1", Name: "list_files", Input: []byte(`{}`)}}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c1", Name: "list_files", Output: []byte(`["a.txt"]`)}}},
		assistantText("a2"),
	}))
}

// A tool call and its result are never split at the window's edge: a
// window that would begin with the result reaches back to the call; one
// that begins with the call has the result after it.
func TestWindowKeepsToolCallWithResult(t *testing.T) {
	cases := []struct {
		window    int
		wantFirst string // the role and content of the history's first message
		wantLen   int
	}{
		{2, "assistant:call c1", 3}, // the edge falls on the result: one more
		{3, "assistant:call c1", 3}, // the edge falls on the call
		{4, "user:u1", 4},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint("last ", tc.window), func(t *testing.T) {
			model := keeltest.NewModel(keelReply{Text: "ok"})
			mem := memory.NewInMemory()
			toolThread(t, mem)
			a := must(agent.New(agent.Config{ID: "a", Instructions: "x", Model: model, Memory: mem}))
			must(a.Generate(context.Background(), []keel.Message{keel.UserText("now")},
				agent.WithThread("tools"), agent.WithResource("r"), agent.WithLastMessages(tc.window)))
			h := history(t, model.Prompts()[0])
			if len(h) != tc.wantLen || describe(h[0]) != tc.wantFirst {
				t.Fatalf("Got(history) = %d messages from %s; want %d from %s", len(h), describe(h[0]), tc.wantLen, tc.wantFirst)
			}
			calls, results := 0, 0
			for _, m := range h {
				for _, p := range m.Parts {
					switch p.(type) {
					case keel.ToolCallPart:
						calls++
					case keel.ToolResultPart:
						results++
					}
				}
			}
			if calls != 1 || results != 1 {
				t.Errorf("Got(history) %d calls, %d results; want the call with its result", calls, results)
			}
		})
	}
}

func describe(m keel.Message) string {
	for _, p := range m.Parts {
		switch p := p.(type) {
		case keel.ToolCallPart:
			return string(m.Role) + ":call " + p.ID
		case keel.ToolResultPart:
			return string(m.Role) + ":result " + p.CallID
		}
	}
	return string(m.Role) + ":" + m.Text()
}

// What the processors see is the window too: a refused file outside it is
// neither sent nor acted on.
func TestWindowProcessorsSeeTheWindow(t *testing.T) {
	model := keeltest.NewModel(keelReply{Text: "ok"})
	mem := memory.NewInMemory()
	must(mem.CreateThread(context.Background(), memory.Thread{ID: "files", ResourceID: "r"}))
	old := []keel.Message{userMsg(keel.TextPart{Text: "here"}, xlsx("old.xlsx")), assistantText("got it")}
	for i := range 10 {
		old = append(old, keel.UserText(fmt.Sprint("q", i)), assistantText(fmt.Sprint("a", i)))
	}
	must(mem.SaveMessages(context.Background(), "r", "files", old))
	a := must(agent.New(agent.Config{ID: "a", Instructions: "x", Model: model, Memory: mem}))
	res := must(a.Generate(context.Background(), []keel.Message{keel.UserText("now")}, agent.WithThread("files"), agent.WithResource("r")))
	for _, p := range userParts(model.Prompts()[0]) {
		if p == "file:"+xlsxType {
			t.Fatalf("Got(prompt) with the old file; want only the window's messages")
		}
	}
	if len(res.Recoveries) != 0 {
		t.Errorf("Got(recoveries) = %+v; want none: the file outside the window is not the run's", res.Recoveries)
	}
}

func assistantText(s string) keel.Message {
	return keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: s}}}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
