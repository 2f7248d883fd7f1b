package main_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/provider/google/googletest"
)

// studioDir holds the lockfile of Mastra Studio (the mastra CLI 1.31.0).
const studioDir = "../../test/mastra-studio"

// TestMastraStudio starts the real Mastra Studio, installed from its
// lockfile, with the command keel serve prints, against a real keel serve
// whose model is a local Gemini-protocol server, and drives it in
// chromium: the agents page lists keel's agent; its chat sends a message
// and shows the streamed answer; after a reload the thread is listed and
// its history shown; no page error, no failed call to keel. Screenshots
// go to cmd/keel/testoutput/.
func TestMastraStudio(t *testing.T) {
	node := studioSetup(t)
	browser := chromium(t)
	const answer = "keel answers Studio 7319"
	gem := googletest.NewServer(t, googletest.Options{Text: answer})
	port := freePort(t)
	studioOrigin := "http://localhost:" + port
	s := startServe(t, t.TempDir(), geminiEnv(gem, "KEEL_CORS_ORIGINS="+studioOrigin), loopback...)

	// The command keel serve prints, with the installed CLI for npx.
	_, line, ok := strings.Cut(s.Stderr(), "keel serve: Mastra Studio: npx mastra ")
	if !ok {
		t.Fatalf("Got(keel serve's start-up) = %s; want the command that starts Mastra Studio", s.Stderr())
	}
	line, _, _ = strings.Cut(line, " (then open")
	args := append([]string{filepath.Join("node_modules", "mastra", "dist", "index.js")}, strings.Fields(line)...)
	if !strings.Contains(line, "--port "+port) {
		t.Fatalf("Got(studio command) = %q; want Studio on port %s, the allowed origin's", line, port)
	}
	studio := exec.Command(node, args...)
	studio.Dir = studioDir
	studio.Env = env("MASTRA_TELEMETRY_DISABLED=1")
	var studioOut strings.Builder
	studio.Stdout, studio.Stderr = &lockedWriter{w: &studioOut}, &lockedWriter{w: &studioOut}
	if err := studio.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = studio.Process.Kill()
		_ = studio.Wait()
	})
	waitHTTP(t, studioOrigin+"/", 90*time.Second)

	out := outputDir(t)
	pg := newPage(t, browser, s.url)
	shot := func(name string) { pg.shot(out, name) }

	// The agents page lists keel's agent.
	pg.run("open the agents page", chromedp.Navigate(studioOrigin+"/agents"))
	pg.waitText("the agents page listing keel's agent", "Assistant", "You are a helpful assistant.")
	shot("mastra-studio-agents.png")

	// Its chat sends a message and shows the streamed answer.
	const question = "hello from Mastra Studio 5521"
	pg.setUnborn(true)
	pg.run("open the chat", chromedp.Navigate(studioOrigin+"/agents/assistant/threads/new"))
	composer := chromedp.CSS(`textarea, [contenteditable="true"]`)
	pg.run("type the message", chromedp.WaitVisible(composer), chromedp.Click(composer),
		chromedp.SendKeys(composer, question), chromedp.SendKeys(composer, "\r"))
	pg.waitText("the streamed answer", question, answer)
	pg.setUnborn(false)
	shot("mastra-studio-chat.png")
	if n := len(gem.Requests()); n == 0 {
		t.Fatal("Got(model calls) = 0; want the message to have reached the model")
	}

	// After a reload the thread is listed, its history shown.
	url := eval[string](pg, `location.href`)
	if !strings.Contains(url, "/threads/") || strings.HasSuffix(url, "/threads/new") {
		t.Fatalf("Got(address after the first message) = %s; want the thread's own", url)
	}
	pg.run("reload", chromedp.Reload())
	pg.waitText("the thread and its history after a reload", question, answer)
	listed := eval[bool](pg, fmt.Sprintf(
		`[...document.querySelectorAll('a')].some(a => a.href.includes(%q) && a.innerText.includes(%q))`,
		url[strings.Index(url, "/agents/"):], question[:20]))
	if !listed {
		t.Errorf("Got(thread list) without a link to %s titled by the message; want the thread listed", url)
	}
	shot("mastra-studio-reloaded.png")

	pg.checkClean(t)
	if t.Failed() {
		t.Logf("mastra studio:\n%s\nkeel serve:\n%s", studioOut.String(), s.Stderr())
	}
}

// studioSetup returns node, with Studio installed from its lockfile. Its
// packages' install scripts build or fetch native tools Studio does not
// use: skipping them saves time.
func studioSetup(t *testing.T) string {
	t.Helper()
	return npmInstalled(t, "the Mastra Studio test", studioDir, filepath.Join("node_modules", "mastra", "dist", "studio", "index.html"), "--ignore-scripts")
}

// chromium returns the browser to drive: $KEEL_CHROMIUM, else Debian's
// chromium. Without it the test is skipped, or fails under CI, whose test
// command installs it.
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
	t.Skip("skipped: the Mastra Studio test needs chromium (Debian: apt-get install chromium), or KEEL_CHROMIUM naming a Chrome binary")
	return ""
}

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

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

// waitHTTP polls url until it answers 200, failing after limit.
func waitHTTP(t *testing.T, url string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Got(GET %s) = %v; want 200 within %s", url, err, limit)
		}
		time.Sleep(200 * time.Millisecond) // polling a starting process, with a deadline
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// page is a headless chromium tab and the trouble it saw: console errors
// and uncaught exceptions, and calls to keel that failed. It is the
// least this test needs of a browser harness.
type page struct {
	t       *testing.T
	ctx     context.Context
	keelURL string

	mu       sync.Mutex
	urls     map[network.RequestID]string
	problems []string
	// unborn is set while the chat's thread is not made yet: Studio asks
	// for it by its id, and is answered 404 "Thread not found" (as by
	// Mastra's server) until the first message makes it.
	unborn  bool
	missing map[string]bool // those 404s, by URL
}

func newPage(t *testing.T, browser, keelURL string) *page {
	t.Helper()
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(browser), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1400, 900), chromedp.UserDataDir(t.TempDir()))
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	p := &page{t: t, ctx: ctx, keelURL: keelURL, urls: map[network.RequestID]string{}, missing: map[string]bool{}}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		t.Fatalf("Got(start chromium %s) = %v; want a browser", browser, err)
	}
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if (m.Type == chromedp.ConsoleError || m.IsException()) && !expected(m) && !p.wasMissing(m) {
				p.note(fmt.Sprintf("console: %s (%s:%d)", m, m.URL, m.Line))
			}
		}
	}()
	return p
}

// expected tells the console errors that are no fault of keel's: the
// page's reload script asks Studio's own server (not keel) for
// /refresh-events, which only Mastra's dev server has, and Studio shows
// provider logos from the internet, which this machine cannot reach.
func expected(m chromedp.ConsoleMessage) bool {
	if strings.Contains(m.Text, "EventSource") && !strings.Contains(m.Text, "/api/") {
		return true
	}
	return m.Source == "network" && !strings.HasPrefix(m.URL, "http://localhost") && !strings.HasPrefix(m.URL, "http://127.0.0.1")
}

// wasMissing tells the browser's line for a 404 of the unborn thread.
func (p *page) wasMissing(m chromedp.ConsoleMessage) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return m.Source == "network" && p.missing[m.URL]
}

func (p *page) setUnborn(v bool) {
	p.mu.Lock()
	p.unborn = v
	p.mu.Unlock()
}

func (p *page) note(s string) {
	p.mu.Lock()
	p.problems = append(p.problems, s)
	p.mu.Unlock()
}

func (p *page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		p.urls[ev.RequestID] = ev.Request.Method + " " + ev.Request.URL
	case *network.EventResponseReceived:
		path, _, _ := strings.Cut(strings.TrimPrefix(ev.Response.URL, p.keelURL+"/api/memory/threads/"), "?")
		if p.unborn && ev.Response.Status == http.StatusNotFound && path != ev.Response.URL && path != "" && !strings.Contains(path, "/") {
			p.missing[ev.Response.URL] = true
			return
		}
		if strings.HasPrefix(ev.Response.URL, p.keelURL) && ev.Response.Status >= 400 {
			p.problems = append(p.problems, fmt.Sprintf("keel answered %d to %s", ev.Response.Status, p.urls[ev.RequestID]))
		}
	case *network.EventLoadingFailed:
		// A request the page itself cancelled (the subscription, on a
		// reload) is no failure.
		if u := p.urls[ev.RequestID]; strings.Contains(u, p.keelURL) && !ev.Canceled {
			p.problems = append(p.problems, fmt.Sprintf("%s failed: %s %s", u, ev.ErrorText, ev.CorsErrorStatus))
		}
	}
}

func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("Got(%s) = %v; want it done\n%s", what, err, p.report())
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("Got(eval %s) = %v", expr, err)
	}
	return v
}

// waitText waits until the page shows every one of texts.
func (p *page) waitText(what string, texts ...string) {
	p.t.Helper()
	var conds []string
	for _, s := range texts {
		conds = append(conds, fmt.Sprintf("document.body.innerText.includes(%q)", s))
	}
	ctx, cancel := context.WithTimeout(p.ctx, 90*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](strings.Join(conds, " && "))); err != nil {
		text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		p.t.Fatalf("Got(%s) = %v; want the page to show %q\npage text:\n%s\n%s", what, err, texts, text, p.report())
	}
}

func (p *page) shot(dir, name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100)) // quality 100 makes a PNG
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), png, 0o644)
	}
	if err != nil {
		p.t.Errorf("Got(screenshot %s) = %v; want it kept", name, err)
	}
}

func (p *page) report() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return "page problems:\n" + strings.Join(p.problems, "\n")
}

func (p *page) checkClean(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.problems {
		t.Errorf("Got(page) %s; want no page error and every call to keel answered", pr)
	}
}
