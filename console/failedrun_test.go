package console_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// A run that fails even once the file is taken out: the chat says so as
// it happens, and the thread, loaded again, still tells what keel did
// with the file (stored on the user's message, since there is no reply).
func TestConsoleFailedRun(t *testing.T) {
	k := startKeelWith(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) {
		return providertest.Reply{Status: 400, Body: googletest.ErrorBody(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")}, true
	}})
	tb := newTab(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), spreadsheet(3, 1000))
	k.signIn(tb, "/agents/assistant/chat")
	tb.Do("attach and send", chromedp.WaitVisible(chromedp.CSS("textarea")), chromedp.SendKeys(chromedp.CSS("textarea"), "Read this"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{filepath.Join(dir, "leads.xlsx")}))
	tb.WaitFor("the file chosen", `document.querySelectorAll(".chosen li").length === 1`)
	tb.Do("send", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
	tb.WaitFor("the failure told", `document.querySelector(".activity")?.textContent.includes("The run failed")`)
	tb.WaitFor("the stored thread", `location.pathname.startsWith("/threads/") && document.querySelector(".msg.user:not(.live)") !== null`)
	tb.Do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".msg.user .file .recovery")))
	tb.Shot("failed-run")
	acted := browsertest.Eval[string](tb, `document.querySelector(".msg.user").textContent`)
	for _, want := range []string{"The run failed after keel handled this turn's files", "leads.xlsx", "uploaded to the sandbox at /home/user/uploads/", "google answered 400 INVALID_ARGUMENT"} {
		if !strings.Contains(acted, want) {
			t.Errorf("Got(what keel did on the failed turn) = %q; want %q", acted, want)
		}
	}
	if n := browsertest.Eval[int](tb, `document.querySelectorAll(".recovery").length`); n != 1 {
		t.Errorf("Got(recoveries shown) = %d; want 1, on the file's card", n)
	}
	if n := browsertest.Eval[int](tb, `document.querySelectorAll(".msg.assistant").length`); n != 0 {
		t.Errorf("Got(assistant messages) = %d; want none: the run failed", n)
	}

	// The thread can be deleted from its page, once confirmed.
	tid := strings.TrimPrefix(browsertest.Eval[string](tb, `location.pathname`), "/threads/")
	tb.Do("delete the thread", chromedp.Click(chromedp.CSS("button.delete-thread")))
	tb.WaitFor("the threads list", `location.pathname === "/threads" && document.querySelector("table.threads tbody td") !== null`)
	if code := k.get(t, "/api/memory/threads/"+tid+"?resourceId=studio"); code != 404 {
		t.Errorf("Got(the deleted thread) = %d; want 404", code)
	}
	dialogs := tb.Dialogs()
	if len(dialogs) != 1 || !strings.HasPrefix(dialogs[0], "confirm: Delete this thread") {
		t.Errorf("Got(dialogs) = %q; want the delete's confirmation", dialogs)
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
