package browsertest

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Chromium returns the browser the tests drive: $KEEL_CHROMIUM, else
// Debian's chromium (or chromium-browser) on PATH. Without one it skips
// the test, or fails it when $CI is set: CI runs the browser tests, and
// its test command installs chromium.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KEEL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("Got(chromium) = not found; want it installed: CI runs the browser tests (scripts/test.sh installs Debian's chromium)")
	}
	t.Skip("skipped: the browser tests need chromium (Debian: apt-get install chromium), or KEEL_CHROMIUM naming a Chrome binary")
	return ""
}

// Options shape a [Tab]. The zero value is a 1280×800 window that
// dismisses every dialog and counts every console error.
type Options struct {
	// Width and Height are the window's size in CSS pixels; 0 means
	// 1280×800.
	Width, Height int
	// OutputDir is where [Tab.Shot] writes; "" means "testoutput" in the
	// working directory, which go test makes the test's package
	// directory.
	OutputDir string
	// Accept tells whether a JavaScript dialog (alert, confirm, prompt,
	// beforeunload) is accepted; nil dismisses every one. Each dialog is
	// recorded either way (see [Tab.Dialogs]). It is called from the
	// browser's event goroutine.
	Accept func(kind, message string) bool
	// Expected tells whether a console error is one the page means to
	// cause (such as the browser's line for a 401 a page answers by
	// asking for a token), and so is not counted; nil counts every one.
	Expected func(chromedp.ConsoleMessage) bool
}

// Tab is a headless chromium tab, alone in its browser, and what it saw.
// Its methods are for the test's goroutine; the records they read are
// kept safe for the browser's goroutines.
type Tab struct {
	// Ctx is the tab's chromedp context, for actions the methods do not
	// cover (chromedp.Run, chromedp.Call). It ends with the test.
	Ctx context.Context

	t        testing.TB
	out      string
	download string

	mu       sync.Mutex
	errs     []string
	dialogs  []string
	requests []string
}

// New starts chromium (see [Chromium]) with a fresh profile and returns
// its tab; the browser is closed when the test ends.
func New(t testing.TB, opts Options) *Tab {
	t.Helper()
	path := Chromium(t)
	if opts.Width == 0 || opts.Height == 0 {
		opts.Width, opts.Height = 1280, 800
	}
	out, err := filepath.Abs(cmp.Or(opts.OutputDir, "testoutput"))
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		t.Fatalf("browsertest: output directory: %v", err)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(opts.Width, opts.Height),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	tb := &Tab{Ctx: ctx, t: t, out: out, download: t.TempDir()}
	err = chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			tb.mu.Lock()
			tb.dialogs = append(tb.dialogs, string(ev.Type)+": "+ev.Message)
			tb.mu.Unlock()
			accept := opts.Accept != nil && opts.Accept(string(ev.Type), ev.Message)
			// Answered from another goroutine: the listener must not
			// wait on the browser it listens to.
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
		case *network.EventRequestWillBeSent:
			tb.mu.Lock()
			tb.requests = append(tb.requests, ev.Request.URL)
			tb.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatalf("Got(start chromium %s) = %v; want a browser", path, err)
	}
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if (m.Type == chromedp.ConsoleError || m.IsException()) && (opts.Expected == nil || !opts.Expected(m)) {
				tb.mu.Lock()
				tb.errs = append(tb.errs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				tb.mu.Unlock()
			}
		}
	}()
	_, err = chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: tb.download, EventsEnabled: new(true),
	})
	if err != nil {
		t.Fatalf("Got(start chromium %s) = %v; want downloads allowed", path, err)
	}
	return tb
}

// OutputDir is the absolute directory where [Tab.Shot] writes.
func (tb *Tab) OutputDir() string { return tb.out }

// ConsoleErrors returns the console errors and uncaught exceptions seen
// so far, each with where it came from, less those Options.Expected
// allows.
func (tb *Tab) ConsoleErrors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.errs...)
}

// Dialogs returns the JavaScript dialogs opened so far, each as
// "kind: message", such as "confirm: Delete this thread?".
func (tb *Tab) Dialogs() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.dialogs...)
}

// Requests returns the URL of every request the tab made so far, in
// order: documents, assets, fetches.
func (tb *Tab) Requests() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.requests...)
}
