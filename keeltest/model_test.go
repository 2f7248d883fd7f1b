package keeltest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
)

func ExampleNewModel() {
	refusal := &keel.UnsupportedFunctionalityError{Functionality: "media type: application/zip"}
	m := keeltest.NewModel(keeltest.Reply{Err: refusal}, keeltest.Reply{Text: "ok"})
	ctx := context.Background()
	req := &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}

	_, err := m.Generate(ctx, req)
	fmt.Println(err)
	resp, _ := m.Generate(ctx, req)
	fmt.Println(resp.Text(), m.Calls(), m.Prompts()[1][0].Text())
	// Output:
	// 'media type: application/zip' functionality not supported.
	// ok 2 hi
}

func TestModelRecordsClonesOfPrompts(t *testing.T) {
	m := keeltest.NewModel(keeltest.Reply{Text: "a"})
	msgs := []keel.Message{keel.UserText("original")}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	msgs[0].Parts[0] = keel.TextPart{Text: "changed"}
	if got := m.Prompts()[0][0].Text(); got != "original" {
		t.Errorf("Got(recorded prompt) = %q; want the prompt as it was sent", got)
	}
}

func TestModelScriptExhausted(t *testing.T) {
	m := keeltest.NewModel(keeltest.Reply{Text: "only"})
	ctx := context.Background()
	req := &keel.Request{Messages: []keel.Message{keel.UserText("x")}}
	if _, err := m.Generate(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(ctx, req); err == nil {
		t.Errorf("Got(second call) = nil error; want the script exhausted")
	}
	m.RepeatLast = true
	if resp, err := m.Generate(ctx, req); err != nil || resp.Text() != "only" {
		t.Errorf("Got(RepeatLast) = %v, %v; want the last reply again", resp, err)
	}
}

func TestModelStream(t *testing.T) {
	boom := errors.New("boom")
	m := keeltest.NewModel(
		keeltest.Reply{Chunks: []string{"a", "b"}, ToolCalls: []keel.ToolCallPart{{ID: "1", Name: "t"}}},
		keeltest.Reply{Text: "partial", Err: boom},
	)
	var got []string
	for ev, err := range m.Stream(context.Background(), &keel.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s:%s%s:%s", ev.Type, ev.Text, ev.ToolCall.Name, ev.FinishReason))
	}
	want := "[text-delta:a: text-delta:b: tool-call:t: finish::tool-calls]"
	if fmt.Sprint(got) != want {
		t.Errorf("Got(events) = %v; want %s", got, want)
	}
	var text string
	var err error
	for ev, e := range m.Stream(context.Background(), &keel.Request{}) {
		text += ev.Text
		err = e
	}
	if text != "partial" || !errors.Is(err, boom) {
		t.Errorf("Got(text, err) = %q, %v; want the text, then the error", text, err)
	}
}
