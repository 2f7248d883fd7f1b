package console_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
)

// noteTool writes a note in the run's sandbox, as a tool that leaves a
// file behind does.
var noteTool = tool.Tool{
	Name:        "write_note",
	Description: "writes a note in the sandbox",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	Execute: func(ctx context.Context, call tool.Call) (any, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return nil, err
		}
		sb, err := call.Sandbox(ctx)
		if err != nil {
			return nil, err
		}
		if err := sb.(workspace.FileSystem).WriteFile(ctx, "notes/summary.txt", []byte(in.Text)); err != nil {
			return nil, err
		}
		return map[string]any{"written": "notes/summary.txt", "bytes": len(in.Text)}, nil
	},
}

// A turn where the model calls a tool: the call and its result are shown
// live and once stored, and what the tool wrote is in the sandbox.
func TestConsoleToolCalls(t *testing.T) {
	k := startKeelWith(t, googletest.Options{Text: "The note is written.", Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
		if n == 0 {
			return providertest.Reply{Body: googletest.StreamToolCallBody("call-1", "write_note", `{"text":"<b>three</b> leads"}`), ContentType: "text/event-stream"}, true
		}
		return providertest.Reply{}, false
	}}, noteTool)
	tb := newTab(t)
	k.signIn(tb, "/agents/assistant/chat")
	browsertest.Eval[chromedp.Void](tb, `window.__tools = []; new MutationObserver(() => {
		for (const el of document.querySelectorAll(".msg.live .tool summary")) if (!window.__tools.includes(el.textContent)) window.__tools.push(el.textContent);
	}).observe(document.getElementById("main"), {subtree: true, childList: true}); 0`)
	tb.Do("send", chromedp.WaitVisible(chromedp.CSS("textarea")), chromedp.SendKeys(chromedp.CSS("textarea"), "Write a note"),
		chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
	tb.WaitFor("the stored answer", `[...document.querySelectorAll(".msg.assistant:not(.live) .md")].some((e) => e.textContent === "The note is written.")`)
	live := browsertest.Eval[[]string](tb, `window.__tools`)
	if strings.Join(live, "|") != "Tool write_note called|Tool write_note returned" {
		t.Errorf("Got(live tool events) = %q; want the call, then its result", live)
	}
	tb.Do("open the tool", chromedp.Click(chromedp.CSS(".msg.assistant .tool summary")))
	tb.Shot("tool-call")
	if n := browsertest.Eval[int](tb, `document.querySelectorAll(".msg.assistant .tool").length`); n != 1 {
		t.Errorf("Got(stored tool calls shown) = %d; want the one call, once", n)
	}
	stored := browsertest.Eval[string](tb, `document.querySelector(".msg.assistant .tool").textContent`)
	for _, want := range []string{"write_note", `"text": "<b>three</b> leads"`, `"written": "notes/summary.txt"`} {
		if !strings.Contains(stored, want) {
			t.Errorf("Got(stored tool call) = %q; want %q", stored, want)
		}
	}
	if n := browsertest.Eval[int](tb, hostileDOM+` + document.querySelectorAll("main b").length`); n != 0 {
		t.Errorf("Got(markup from the tool's input) = %d elements; want none", n)
	}
	tb.Do("open the sandbox", chromedp.Navigate(k.url+"/sandbox?agentId=assistant"), chromedp.WaitVisible(chromedp.CSS(".listing table")))
	if paths := browsertest.Eval[[]string](tb, `[...document.querySelectorAll(".listing td .path")].map((e) => e.textContent)`); strings.Join(paths, "|") != "notes/summary.txt" {
		t.Errorf("Got(sandbox files) = %q; want the note the tool wrote", paths)
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
