package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
)

// textContents is a message's contents as an array of one text part,
// padded so that its JSON is exactly size bytes.
func textContents(t *testing.T, size int) string {
	t.Helper()
	const head, end = `[{"type":"text","text":"`, `"}]`
	n := size - len(head) - len(end)
	if n < 1 {
		t.Fatalf("textContents(%d): too small", size)
	}
	return head + strings.Repeat("a", n) + end
}

// The user's message is echoed (the signal of the answer, the
// data-user-message of the turn) with its contents as Studio sent them,
// parts and all, up to 64 KiB of them; larger contents are echoed as the
// message's text.
func TestStudioSignalEchoesContentsAsSent(t *testing.T) {
	const limit = 64 << 10
	tests := []struct {
		name, contents string
		asSent         bool
	}{
		{"a string", `"hello there"`, true},
		{"parts", `[{"type":"text","text":"hello"},{"type":"text","text":" there"}]`, true},
		{"parts of exactly the limit", textContents(t, limit), true},
		{"parts a byte past the limit", textContents(t, limit+1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "ok"})})
			sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
			status, body := e.do("POST", "/api/agents/support/send-message",
				`{"message":{"contents":`+tt.contents+`},"resourceId":"support","threadId":"t1"}`)
			v := wantStatus(t, "send-message", status, body, http.StatusOK)
			var sent any
			if err := json.Unmarshal([]byte(tt.contents), &sent); err != nil {
				t.Fatal(err)
			}
			want := sent
			if !tt.asSent {
				want = strings.Repeat("a", len(tt.contents)-len(`[{"type":"text","text":""}]`))
			}
			sig, _ := v["signal"].(map[string]any)
			echoed, _ := json.Marshal(sig["contents"])
			if w, _ := json.Marshal(want); string(echoed) != string(w) {
				t.Errorf("Got(signal contents) = %.80s; want %.80s", echoed, w)
			}
			um := sub.turn()[1]
			data, _ := um["data"].(map[string]any)
			echoed, _ = json.Marshal(data["contents"])
			if w, _ := json.Marshal(want); um["type"] != "data-user-message" || string(echoed) != string(w) {
				t.Errorf("Got(%v contents) = %.80s; want %.80s", um["type"], echoed, w)
			}
		})
	}
}

// A send-message turn that runs as it should logs no warning and no
// error: its options decode, and its leaving the queue is no failure.
// The first turn's logs are all in once the second turn has run, since a
// thread's worker takes the next turn only once the last is done with.
func TestStudioTurnLogsNothingAmiss(t *testing.T) {
	logs := newLogSink()
	model := keeltest.NewModel(keeltest.Reply{Text: "fine"})
	model.RepeatLast = true
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.Logger = logs.logger() }})
	sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	for _, text := range []string{"first", "second"} {
		status, body := e.do("POST", "/api/agents/support/send-message", sendBody(text))
		wantStatus(t, "send-message "+text, status, body, http.StatusOK)
	}
	for range 2 {
		if got := chunkText(sub.turn()); got != "fine" {
			t.Fatalf("Got(turn) = %q; want fine", got)
		}
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	for _, r := range logs.records {
		if r.Level >= slog.LevelWarn {
			t.Errorf("Got(log) %s %q %v; want no warning or error", r.Level, r.Message, recordAttrs(r))
		}
	}
}

// A send-message turn runs with the maxSteps Studio sends, from
// ifIdle.streamOptions when it has them (what Studio sends), else from
// streamOptions.
func TestStudioSendMessageStepLimit(t *testing.T) {
	tests := []struct{ name, options string }{
		{"ifIdle", `"ifIdle":{"streamOptions":{"maxSteps":1}}`},
		{"streamOptions", `"streamOptions":{"maxSteps":1}`},
		{"ifIdle over streamOptions", `"streamOptions":{"maxSteps":3},"ifIdle":{"streamOptions":{"maxSteps":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := keeltest.NewModel(lookupCall())
			model.RepeatLast = true // would call the tool for ever
			e := newEnv(t, envOptions{model: model, config: withTools(lookupTool)})
			sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
			status, body := e.do("POST", "/api/agents/support/send-message",
				`{"message":{"contents":"loop"},"resourceId":"support","threadId":"t1",`+tt.options+`}`)
			wantStatus(t, "send-message", status, body, http.StatusOK)
			chunks := sub.turn()
			if model.Calls() != 1 || strings.Count(chunkTypes(chunks), "step-start") != 1 {
				t.Errorf("Got(model calls, turn) = %d, %s; want 1 step: maxSteps 1", model.Calls(), chunkTypes(chunks))
			}
		})
	}
}
