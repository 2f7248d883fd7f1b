package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// Do runs actions, and fails the test when one fails or they take over a
// minute, with a screenshot ("failed-WHAT"), the page's text, the console
// errors and the dialogs.
func (tb *Tab) Do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.Ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.Shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		sctx, cancel := context.WithTimeout(tb.Ctx, 10*time.Second)
		defer cancel()
		text, _ := chromedp.Run(sctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		tb.t.Fatalf("Got(%s) = %v; want it done. The page shows:\n%s\nconsole: %q\ndialogs: %q", what, err, text, tb.ConsoleErrors(), tb.Dialogs())
	}
}

// WaitFor waits until the JavaScript expression is truthy in the page,
// for at most 45 seconds, failing the test as [Tab.Do] does.
func (tb *Tab) WaitFor(what, expr string) {
	tb.t.Helper()
	tb.Do(what, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(45*time.Second))(ctx, t)
		return err
	}))
}

// Eval evaluates a JavaScript expression in the tab's page and decodes
// its value (JSON) into T, failing the test when it throws or does not
// decode.
func Eval[T any](tb *Tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.Ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("Got(evaluate %s) = %v", expr, err)
	}
	return v
}

// Shot keeps a PNG screenshot of the whole page as NAME.png in the output
// directory. A screenshot that cannot be taken is logged, not fatal: it
// is for people, and a failing test is taking one of a broken page.
func (tb *Tab) Shot(name string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.Ctx, 20*time.Second)
	defer cancel()
	// Quality 100 is a PNG.
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(tb.out, name+".png"), b, 0o644); err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
	}
}

// Download clicks the element the CSS selector names and returns the
// bytes the browser saved, once the download completes (within a
// minute); a canceled download fails the test.
func (tb *Tab) Download(what, selector string) []byte {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.Ctx, time.Minute)
	defer cancel()
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	tb.Do("click "+what, chromedp.Click(chromedp.CSS(selector)))
	for ev, err := range progress {
		if err != nil {
			tb.t.Fatalf("Got(download %s) = %v; want it saved", what, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			b, err := os.ReadFile(filepath.Join(tb.download, ev.GUID))
			if err != nil {
				tb.t.Fatal(err)
			}
			return b
		case browser.DownloadProgressStateCanceled:
			tb.t.Fatalf("Got(download %s) = canceled; want it saved", what)
		}
	}
	tb.t.Fatalf("Got(download %s) = no end; want it saved", what)
	return nil
}
