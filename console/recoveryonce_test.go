package console_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/internal/officetest"
)

// watchRecoveries records, from now on, the most recovery elements the
// page ever shows at once, and the text of each the live turn shows.
const watchRecoveries = `window.__most = 0; window.__live = [];
	new MutationObserver(() => {
		window.__most = Math.max(window.__most, document.querySelectorAll(".recovery").length);
		for (const e of document.querySelectorAll(".msg.live .recovery")) if (!e.__seen) { e.__seen = true; window.__live.push(e); }
	}).observe(document.getElementById("main"), {subtree: true, childList: true, characterData: true}); 0`

// What keel did with a file is shown once, on the file's card, while the
// turn streams, once it is stored, and after a reload alike, at a phone's
// width and a desktop's: one recovery element for one file, with the
// same words live and stored, and nothing of it in another list.
func TestConsoleRecoveryShownOnce(t *testing.T) {
	k := startKeel(t, "Read.")
	tb := newTab(t)
	dir := t.TempDir()
	book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
	writeFile(t, filepath.Join(dir, "leads.xlsx"), book)
	k.signInHome(tb)
	for _, sc := range phoneAndDesktop {
		t.Run(sc.name, func(t *testing.T) {
			k.openChat(tb, sc)
			browsertest.Eval[chromedp.Void](tb, watchRecoveries)
			tb.Do("write and attach", chromedp.SendKeys(chromedp.CSS("textarea"), "Read this"),
				chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{filepath.Join(dir, "leads.xlsx")}))
			tb.WaitFor("the file chosen", `document.querySelectorAll(".chosen li").length === 1`)
			tb.Do("send", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
			tb.WaitFor("the turn stored", `document.querySelector(".msg.assistant:not(.live)") !== null && !document.querySelector(".composer button[type=submit]").disabled`)
			tb.Shot("recovery-once-" + sc.name)
			live := browsertest.Eval[[]string](tb, `window.__live.map((e) => e.textContent)`)
			most := browsertest.Eval[int](tb, `window.__most`)
			stored := recoveriesShown(tb)
			tb.Do("reload", chromedp.Reload())
			tb.WaitFor("the thread", `document.querySelector(".msg.user .file .download") !== null`)
			tb.Shot("recovery-once-reloaded-" + sc.name)
			reloaded := recoveriesShown(tb)
			if len(live) != 1 || most != 1 {
				t.Errorf("Got(recoveries shown live) = %q, at most %d at once; want 1", live, most)
			}
			for when, got := range map[string][]string{"once stored": stored, "after a reload": reloaded} {
				if len(got) != 1 || !strings.HasPrefix(got[0], "file:") {
					t.Errorf("Got(recoveries shown %s) = %q; want 1, on the file's card", when, got)
				}
			}
			if len(live) == 1 && len(reloaded) == 1 && "file:"+live[0] != reloaded[0] {
				t.Errorf("Got(recovery live) = %q, after a reload %q; want the same words", live[0], reloaded[0])
			}
			if len(reloaded) == 1 {
				// The second width's turn finds the first's refusal remembered:
				// the 502 is its evidence.
				for _, want := range []string{"converted to text", "uploaded to the sandbox at /home/user/uploads/", "Why: ", "502", "Unsupported File Handler"} {
					if !strings.Contains(reloaded[0], want) {
						t.Errorf("Got(the recovery) = %q; want it to say %q", reloaded[0], want)
					}
				}
			}
			if w := browsertest.Eval[[]int](tb, sideways); w[0] > w[1] {
				t.Errorf("Got(page width at %d px) = %d; want no wider than the window (%d)", sc.width, w[0], w[1])
			}
		})
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}

// recoveriesShown returns the text of every recovery element of the
// page, each prefixed "file:" when it is on a file's card.
func recoveriesShown(tb *browsertest.Tab) []string {
	return browsertest.Eval[[]string](tb, `[...document.querySelectorAll(".recovery")].map((e) => (e.closest(".file") ? "file:" : "") + e.textContent)`)
}
