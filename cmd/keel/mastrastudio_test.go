package main_test

import (
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/provider/google/googletest"
)

// studioDir holds the lockfile of Mastra Studio (the mastra CLI 1.31.0).
const studioDir = "../../test/mastra-studio"

// TestMastraStudio starts the real Mastra Studio, installed from its
// lockfile, with the command keel serve prints, against a real keel serve
// whose model is a local Gemini-protocol server, and drives it in
// chromium: the agents page lists keel's agent; its chat sends a message
// and shows the streamed answer; after a reload the thread is listed and
// its history shown; no page error, no failed call to keel. Without
// auth, and with the shared token, which Studio sends as the
// Authorization header it is given in its address (auth_header). Screenshots
// go to cmd/keel/testoutput/.
func TestMastraStudio(t *testing.T) {
	node := studioSetup(t)
	browsertest.Chromium(t)
	t.Run("no auth", func(t *testing.T) { driveStudio(t, node, "") })
	t.Run("shared token", func(t *testing.T) { driveStudio(t, node, "studio-test-token") })
}

func driveStudio(t *testing.T, node, token string) {
	const answer = "keel answers Studio 7319"
	gem := googletest.NewServer(t, googletest.Options{Text: answer})
	port := freePort(t)
	studioOrigin := "http://localhost:" + port
	environ := geminiEnv(gem, "KEEL_CORS_ORIGINS="+studioOrigin)
	// Studio takes the header from its address on each page load, and
	// keeps it for that page only.
	query, name := "", "mastra-studio"
	if token != "" {
		environ = append(environ, "KEEL_API_TOKEN="+token)
		query, name = "?auth_header="+neturl.QueryEscape("Bearer "+token), "mastra-studio-token"
	}
	s := startServe(t, t.TempDir(), environ, loopback...)

	studioOut := startStudio(t, node, s, port)

	calls := &keelCalls{keelURL: s.url, urls: map[network.RequestID]string{}, missing: map[string]bool{}}
	tab := browsertest.New(t, browsertest.Options{Width: 1400, Height: 900, Expected: calls.expected})
	if err := chromedp.Listen(tab.Ctx, calls.listen); err != nil {
		t.Fatalf("Got(listen to the tab) = %v", err)
	}
	waitText := func(what string, texts ...string) {
		t.Helper()
		waitTexts(tab, what, texts...)
	}

	// The agents page lists keel's agent.
	tab.Do("open the agents page", chromedp.Navigate(studioOrigin+"/agents"+query))
	waitText("the agents page listing keel's agent", "Assistant", "You are a helpful assistant.")
	tab.Shot(name + "-agents")

	// Its chat sends a message and shows the streamed answer.
	const question = "hello from Mastra Studio 5521"
	calls.setUnborn(true)
	tab.Do("open the chat", chromedp.Navigate(studioOrigin+"/agents/assistant/threads/new"+query))
	composer := chromedp.CSS(`textarea, [contenteditable="true"]`)
	tab.Do("type the message", chromedp.WaitVisible(composer), chromedp.Click(composer),
		chromedp.SendKeys(composer, question), chromedp.SendKeys(composer, "\r"))
	waitText("the streamed answer", question, answer)
	calls.setUnborn(false)
	tab.Shot(name + "-chat")
	if n := len(gem.Requests()); n == 0 {
		t.Fatal("Got(model calls) = 0; want the message to have reached the model")
	}

	// After a reload the thread is listed, its history shown.
	url := browsertest.Eval[string](tab, `location.href`)
	if !strings.Contains(url, "/threads/") || strings.HasSuffix(url, "/threads/new") {
		t.Fatalf("Got(address after the first message) = %s; want the thread's own", url)
	}
	if token == "" {
		tab.Do("reload", chromedp.Reload())
	} else {
		tab.Do("load the thread's page again", chromedp.Navigate(url+query))
	}
	waitText("the thread and its history after a reload", question, answer)
	listed := browsertest.Eval[bool](tab, fmt.Sprintf(
		`[...document.querySelectorAll('a')].some(a => a.href.includes(%q) && a.innerText.includes(%q))`,
		url[strings.Index(url, "/agents/"):], question[:20]))
	if !listed {
		t.Errorf("Got(thread list) without a link to %s titled by the message; want the thread listed", url)
	}
	tab.Shot(name + "-reloaded")

	studioClean(t, tab, calls, studioOut, s)
}

// waitTexts waits until the tab's page shows each of texts.
func waitTexts(tab *browsertest.Tab, what string, texts ...string) {
	var conds []string
	for _, s := range texts {
		conds = append(conds, fmt.Sprintf("document.body.innerText.includes(%q)", s))
	}
	tab.WaitFor(what, strings.Join(conds, " && "))
}

// studioClean fails the test for each page error the tab saw and each
// call to keel that failed, and then logs what Studio and keel serve
// said.
func studioClean(t *testing.T, tab *browsertest.Tab, calls *keelCalls, studioOut *strings.Builder, s *served) {
	t.Helper()
	for _, e := range tab.ConsoleErrors() {
		t.Errorf("Got(console) %s; want no page error", e)
	}
	for _, p := range calls.Problems() {
		t.Errorf("Got(page) %s; want every call to keel answered", p)
	}
	if t.Failed() {
		t.Logf("mastra studio:\n%s\nkeel serve:\n%s", studioOut.String(), s.Stderr())
	}
}

// startStudio starts Mastra Studio, with the command keel serve s
// printed (the installed CLI for npx), on port, and waits until it
// answers. It returns what Studio prints; Studio is stopped when the
// test ends.
func startStudio(t *testing.T, node string, s *served, port string) *strings.Builder {
	t.Helper()
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
	dieWithTest(studio)
	if err := studio.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = studio.Process.Kill()
		_ = studio.Wait()
	})
	waitHTTP(t, "http://localhost:"+port+"/", 90*time.Second)
	return &studioOut
}

// studioSetup returns node, with Studio installed from its lockfile. Its
// packages' install scripts build or fetch native tools Studio does not
// use: skipping them saves time.
func studioSetup(t *testing.T) string {
	t.Helper()
	return npmInstalled(t, "the Mastra Studio test", studioDir, filepath.Join("node_modules", "mastra", "dist", "studio", "index.html"), "--ignore-scripts")
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

// keelCalls watches a tab's calls to keel: every answer of 400 or more,
// and every call that failed (a CORS refusal among them), is a problem,
// save the 404s of the unborn thread (see unborn).
type keelCalls struct {
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

func (k *keelCalls) listen(ev any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		k.urls[ev.RequestID] = ev.Request.Method + " " + ev.Request.URL
	case *network.EventResponseReceived:
		path, _, _ := strings.Cut(strings.TrimPrefix(ev.Response.URL, k.keelURL+"/api/memory/threads/"), "?")
		if k.unborn && ev.Response.Status == http.StatusNotFound && path != ev.Response.URL && path != "" && !strings.Contains(path, "/") {
			k.missing[ev.Response.URL] = true
			return
		}
		if strings.HasPrefix(ev.Response.URL, k.keelURL) && ev.Response.Status >= 400 {
			k.problems = append(k.problems, fmt.Sprintf("keel answered %d to %s", ev.Response.Status, k.urls[ev.RequestID]))
		}
	case *network.EventLoadingFailed:
		// A request the page itself cancelled (the subscription, on a
		// reload) is no failure.
		if u := k.urls[ev.RequestID]; strings.Contains(u, k.keelURL) && !ev.Canceled {
			k.problems = append(k.problems, fmt.Sprintf("%s failed: %s %s", u, ev.ErrorText, ev.CorsErrorStatus))
		}
	}
}

func (k *keelCalls) setUnborn(v bool) {
	k.mu.Lock()
	k.unborn = v
	k.mu.Unlock()
}

// expected tells the console errors that are no fault of keel's: the
// browser's line for a 404 of the unborn thread; the page's reload script
// asking Studio's own server (not keel) for /refresh-events, which only
// Mastra's dev server has; and Studio's provider logos, from the
// internet, which this machine cannot reach.
func (k *keelCalls) expected(m chromedp.ConsoleMessage) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if m.Source == "network" && k.missing[m.URL] {
		return true
	}
	if strings.Contains(m.Text, "EventSource") && !strings.Contains(m.Text, "/api/") {
		return true
	}
	return m.Source == "network" && !strings.HasPrefix(m.URL, "http://localhost") && !strings.HasPrefix(m.URL, "http://127.0.0.1")
}

func (k *keelCalls) Problems() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.problems...)
}
