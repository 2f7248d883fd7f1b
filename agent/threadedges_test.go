package agent_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// TestWindowOfAThreadBeginningWithAToolResult checks that a thread whose
// whole history fits the window is sent whole, even when its first
// message is a tool result: there is no call further back to reach for.
func TestWindowOfAThreadBeginningWithAToolResult(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewInMemory()
	if _, err := mem.CreateThread(ctx, memory.Thread{ID: "t", ResourceID: "u"}); err != nil {
		t.Fatal(err)
	}
	result := keel.Message{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c0", Name: "noop", Output: []byte(`"ok"`)}}}
	if _, err := mem.SaveMessages(ctx, "u", "t", []keel.Message{result}); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "a", Model: keeltest.NewModel(keelReply{Text: "hi"}), Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := a.Generate(ctx, []keel.Message{keel.UserText("q")}, agent.WithThread("t"), agent.WithResource("u"))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Got(Generate) = %v; want an answer", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Got(Generate) still loading its window after 30 s; want the thread's one message")
	}
}

// TestDefaultTitleOfAnUntitledThreadLogsNothing checks that a thread made
// untitled before its first turn gets the turn's default title, with no
// warning logged.
func TestDefaultTitleOfAnUntitledThreadLogsNothing(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewInMemory()
	if _, err := mem.CreateThread(ctx, memory.Thread{ID: "t", ResourceID: "u"}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	a, err := agent.New(agent.Config{ID: "a", Model: keeltest.NewModel(keelReply{Text: "hi"}), Memory: mem,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Generate(ctx, []keel.Message{keel.UserText("Berlin leads")}, agent.WithThread("t"), agent.WithResource("u")); err != nil {
		t.Fatal(err)
	}
	th, err := mem.GetThread(ctx, "u", "t")
	if err != nil || th.Title != "Berlin leads" {
		t.Errorf("Got(thread title) = %q, %v; want Berlin leads", th.Title, err)
	}
	if strings.Contains(logs.String(), "title") {
		t.Errorf("Got(logs) = %q; want no warning about the title", logs.String())
	}
}
