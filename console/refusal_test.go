package console_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// The second spreadsheet sent to a model that refused the first is
// handled before the model is called, and the console says why, live and
// once stored alike, each recovery once: the refusal keel remembered,
// with its evidence.
func TestConsoleRememberedRefusal(t *testing.T) {
	k := startKeel(t, "Read.")
	tb := newTab(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "first.xlsx"), spreadsheet(5, 800))
	writeFile(t, filepath.Join(dir, "second.xlsx"), spreadsheet(6, 900))
	k.signIn(tb, "/agents/assistant/chat")
	tb.Do("the chat", chromedp.WaitVisible(chromedp.CSS("textarea")))
	browsertest.Eval[chromedp.Void](tb, watchRecoveries)
	for i, name := range []string{"first.xlsx", "second.xlsx"} {
		tb.Do("send "+name, chromedp.WaitVisible(chromedp.CSS("textarea")), chromedp.SendKeys(chromedp.CSS("textarea"), "Read this"),
			chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{filepath.Join(dir, name)}))
		tb.WaitFor(name+" chosen", `document.querySelectorAll(".chosen li").length === 1`)
		tb.Do("send", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
		tb.WaitFor(name+"'s turn stored", fmt.Sprintf(`document.querySelectorAll(".msg.assistant:not(.live)").length === %d`, i+1)+
			` && !document.querySelector(".composer button[type=submit]").disabled`)
	}
	tb.Shot("remembered-refusal")
	// Each recovery as the live turn showed it: on the card of the file
	// it concerns ("card:"), or, for a file of an earlier turn handled
	// again, in the turn's list ("list:").
	live := browsertest.Eval[[]string](tb, `window.__live.map((e) => (e.closest(".file") ? "card:" + e.closest(".file").textContent : "list:" + e.textContent))`)
	stored := browsertest.Eval[[]string](tb, `[...document.querySelectorAll(".recovery")].map((e) => (e.closest(".file") ? "card:" + e.closest(".file").textContent : "list:" + e.textContent))`)
	want := "google/gemini-2.5-flash refused " + xlsxType + " before, so keel did not send it again"
	// The first turn: first.xlsx after google's 502. The second: second.xlsx
	// after the remembered refusal, and first.xlsx, of the thread's
	// history, handled again for the same reason before the call.
	check := func(what string, got []string) {
		t.Helper()
		ok := len(got) == 3 &&
			strings.HasPrefix(got[0], "card:first.xlsx") && strings.Contains(got[0], "google answered 502") && !strings.Contains(got[0], want) &&
			slices.ContainsFunc(got[1:], func(s string) bool {
				return strings.HasPrefix(s, "card:second.xlsx") && strings.Contains(s, want) && strings.Contains(s, "evidence: 502")
			}) &&
			slices.ContainsFunc(got[1:], func(s string) bool { return strings.HasPrefix(s, "list:first.xlsx") && strings.Contains(s, want) })
		if !ok {
			t.Errorf("Got(%s recoveries) = %q; want first.xlsx on its card after google's 502, then second.xlsx on its card and first.xlsx in the second turn's list after the remembered refusal, each once", what, got)
		}
	}
	check("live", live)
	check("stored", stored)
	// The refused call and its retry, then one call: the second file was
	// handled before it.
	if n := len(k.gemini.Requests()); n != 3 {
		t.Errorf("Got(model calls) = %d; want 3", n)
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
