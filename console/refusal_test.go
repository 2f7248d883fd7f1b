package console_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// The second spreadsheet sent to a model that refused the first is
// handled before the model is called, and the console says why, live and
// once stored: the refusal keel remembered, with its evidence.
func TestConsoleRememberedRefusal(t *testing.T) {
	k := startKeel(t, "Read.")
	tb := newTab(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "first.xlsx"), spreadsheet(5, 800))
	writeFile(t, filepath.Join(dir, "second.xlsx"), spreadsheet(6, 900))
	k.signIn(tb, "/agents/assistant/chat")
	for i, name := range []string{"first.xlsx", "second.xlsx"} {
		tb.Do("send "+name, chromedp.WaitVisible(chromedp.CSS("textarea")), chromedp.SendKeys(chromedp.CSS("textarea"), "Read this"),
			chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{filepath.Join(dir, name)}))
		tb.WaitFor(name+" chosen", `document.querySelectorAll(".chosen li").length === 1`)
		tb.Do("send", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
		tb.WaitFor(name+"'s turn stored", fmt.Sprintf(`document.querySelectorAll(".msg.assistant:not(.live)").length === %d`, i+1)+
			` && !document.querySelector(".composer button[type=submit]").disabled`)
	}
	tb.Shot("remembered-refusal")
	live := browsertest.Eval[[]string](tb, `[...document.querySelectorAll(".activity > li")].map((e) => e.textContent)`)
	stored := browsertest.Eval[string](tb, `document.querySelectorAll(".msg.assistant .keel-acted")[1]?.textContent ?? ""`)
	want := "google/gemini-2.5-flash refused " + xlsxType + " before, so keel did not send it again"
	if len(live) != 2 || strings.Contains(live[0], want) || !strings.Contains(live[0], "google answered 502") || !strings.Contains(live[1], want) || !strings.Contains(live[1], "evidence: 502") {
		t.Errorf("Got(live recoveries) = %q; want the first after google's 502, the second after the remembered refusal", live)
	}
	if !strings.Contains(stored, "second.xlsx") || !strings.Contains(stored, want) {
		t.Errorf("Got(second turn's stored recoveries) = %q; want %q", stored, want)
	}
	// The refused call and its retry, then one call: the second file was
	// handled before it.
	if n := len(k.gemini.Requests()); n != 3 {
		t.Errorf("Got(model calls) = %d; want 3", n)
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
