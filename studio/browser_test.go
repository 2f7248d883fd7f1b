package studio_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/studio"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// chromium returns the browser the tests drive: $KEEL_CHROMIUM, else
// Debian's chromium. Without it the test is skipped, or fails under CI,
// whose test command installs it.
func chromium(t *testing.T) string {
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

// outputDir is where the tests keep screenshots and figures for people to
// look at; .gitignore keeps it out of the repository.
func outputDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testoutput")
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// keelEnv is a real keel server with the studio: SQLite, a sandbox per
// resource, converters and remembered refusals as keel serve has them,
// and an agent whose model speaks Gemini's wire protocol and answers 502
// to any request carrying an xlsx, as Gemini does.
type keelEnv struct {
	url, token string
	mem        memory.Store
	gemini     *googletest.Server
}

func startKeel(t *testing.T, answer string) *keelEnv {
	t.Helper()
	return startKeelWith(t, googletest.Options{Internal: []string{xlsxType}, Text: answer})
}

// startKeelWith is startKeel with a model server that answers as opts
// say, and tools for the agent.
func startKeelWith(t *testing.T, opts googletest.Options, tools ...tool.Tool) *keelEnv {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	gem := googletest.NewServer(t, opts)
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "test-key", BaseURL: gem.URL()})
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ws := workspace.NewResolved(localsandbox.NewResolver(t.TempDir(), localsandbox.PerResource, localsandbox.Options{Logger: quiet}))
	// As keel serve makes it: converters on, refusals remembered.
	refusals, err := processor.NewRememberedRefusals(store, processor.RefusalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "assistant", Name: "Assistant", Description: "reads what you send",
		Model: model, Memory: store, Workspace: ws, Tools: tools, Logger: quiet,
		Converters: convert.Default(), Refusals: refusals})
	if err != nil {
		t.Fatal(err)
	}
	ui, err := studio.New()
	if err != nil {
		t.Fatal(err)
	}
	const token = "studio-test-token"
	srv, err := server.New(server.Config{Agents: []*agent.Agent{a}, Memory: store, Token: token, Studio: ui, Refusals: refusals,
		SandboxModes: map[string]string{"assistant": "per-resource"}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &keelEnv{url: hs.URL, token: token, mem: store, gemini: gem}
}

// get calls the API with the token and returns the status.
func (k *keelEnv) get(t *testing.T, path string) int {
	t.Helper()
	req, err := http.NewRequest("GET", k.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// tab is a headless chromium tab and what it saw: console errors,
// uncaught exceptions, dialogs, and every URL it requested.
type tab struct {
	t        *testing.T
	ctx      context.Context
	out      string
	download string

	mu       sync.Mutex
	errs     []string
	dialogs  []string
	requests []string
}

func newTab(t *testing.T) *tab {
	t.Helper()
	path := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
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
		chromedp.WindowSize(1280, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	tb := &tab{t: t, ctx: ctx, out: outputDir(t), download: t.TempDir()}
	err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			tb.dialogs = append(tb.dialogs, string(ev.Type)+": "+ev.Message)
			// A delete asks to confirm; anything else is a page that ran
			// what it should not have. Either is answered, from another
			// goroutine, so that the page goes on.
			accept := ev.Type == page.DialogTypeConfirm && strings.HasPrefix(ev.Message, "Delete ")
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
		case *network.EventRequestWillBeSent:
			tb.requests = append(tb.requests, ev.Request.URL)
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
			// The API's 401 before the token is given is how the page
			// learns that it needs one; the browser logs it.
			challenge := m.Source == "network" && strings.Contains(m.Text, "status of 401")
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !challenge {
				tb.mu.Lock()
				tb.errs = append(tb.errs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				tb.mu.Unlock()
			}
		}
	}()
	_, err = chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: tb.download, EventsEnabled: ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func ptr[T any](v T) *T { return &v }

// do runs actions, failing the test with what the page shows when one
// fails or takes over a minute.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		sctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
		defer cancel()
		text, _ := chromedp.Run(sctx, chromedp.Evaluate[string](`document.body.innerText`))
		tb.mu.Lock()
		dialogs := tb.dialogs
		tb.mu.Unlock()
		tb.t.Fatalf("Got(%s) = %v; want it done. The page shows:\n%s\nconsole: %v\ndialogs: %q", what, err, text, tb.consoleErrors(), dialogs)
	}
}

// eval evaluates a JavaScript expression in the page into T.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("Got(evaluate %s) = %v", expr, err)
	}
	return v
}

// waitFor waits until the expression is truthy in the page.
func (tb *tab) waitFor(what, expr string) {
	tb.t.Helper()
	tb.do(what, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(45*time.Second))(ctx, t)
		return err
	}))
}

// shot keeps a screenshot of the whole page.
func (tb *tab) shot(name string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	// Quality 100 is a PNG.
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(tb.out, name+".png")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
	}
}

func (tb *tab) consoleErrors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.errs...)
}

// downloadOf clicks the element and returns the bytes the browser saved.
func (tb *tab) downloadOf(what, selector string) []byte {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
	defer cancel()
	progress := chromedp.Events(ctx, browser.DownloadProgress)
	tb.do("click "+what, chromedp.Click(chromedp.CSS(selector)))
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
	return nil
}

// unlabelled counts the form controls of the page that have no label.
const unlabelled = `[...document.querySelectorAll("input:not([type=hidden]), select, textarea")]
	.filter((e) => !e.closest("[hidden]") && e.labels.length === 0 && !e.getAttribute("aria-label")).length`

// hostileDOM counts elements that model or user text must never become.
const hostileDOM = `document.querySelectorAll("main script, main img, main iframe, main object, main embed, [onerror], [onload]").length`

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// spreadsheet is a stand-in xlsx: the model server only looks at its
// media type, and bytes that are not text catch any re-encoding.
func spreadsheet(seed byte, n int) []byte {
	b := []byte("PK\x03\x04\x14\x00\x06\x00")
	for i := 0; i < n; i++ {
		b = append(b, byte(i*7)^seed)
	}
	return b
}

// groupDigits writes n as the page does: 48213 is "48,213".
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
