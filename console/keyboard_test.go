package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/keel-go/keel/internal/browsertest"
)

// The console works from the keyboard alone: the token form submits with
// Enter, Tab from a view's start reaches an agent's chat link first, and Ctrl+Enter sends.
func TestConsoleKeyboard(t *testing.T) {
	k := startKeel(t, "Answered from the keyboard.")
	tb := newTab(t)
	tb.Do("open the console", chromedp.Navigate(k.url+"/"), chromedp.WaitVisible(chromedp.CSS("#token-input")))
	if focused := browsertest.Eval[string](tb, `document.activeElement.id`); focused != "token-input" {
		t.Errorf("Got(focus when the token is asked) = %q; want the token field", focused)
	}
	tb.Do("type the token", chromedp.KeyEvent(k.token), chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`[data-agent="assistant"]`)))

	// A view leaves the focus at its start, so Tab goes on from there:
	// the agent's chat link is the first stop.
	var stops []string
	for range 40 {
		tb.Do("tab", chromedp.KeyEvent(kb.Tab))
		stop := browsertest.Eval[string](tb, `(document.activeElement.textContent || document.activeElement.id || document.activeElement.tagName).trim()`)
		stops = append(stops, stop)
		if strings.HasPrefix(stop, "Chat with") {
			break
		}
	}
	if len(stops) != 1 || !strings.HasPrefix(stops[0], "Chat with") {
		t.Fatalf("Got(tab stops) = %q; want the chat link first", stops)
	}
	tb.Do("open the chat", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("textarea")))
	tb.Do("write and send", chromedp.Focus(chromedp.CSS("textarea")), chromedp.KeyEvent("Hello"),
		chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	tb.WaitFor("the answer", `document.querySelector(".msg.assistant:not(.live) .md")?.textContent === "Answered from the keyboard."`)
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
