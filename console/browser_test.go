package console_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/console"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// keelEnv is a real keel server with the console: SQLite, a sandbox per
// resource, converters and remembered refusals as keel serve has them,
// and an agent whose model speaks Gemini's wire protocol and answers 502
// to any request carrying an xlsx, as Gemini does.
type keelEnv struct {
	url, token string
	mem        memory.Store
	gemini     *googletest.Server
	http       *httptest.Server
}

func startKeel(t testing.TB, answer string) *keelEnv {
	t.Helper()
	return startKeelWith(t, googletest.Options{Internal: []string{xlsxType}, Text: answer})
}

// startKeelWith is startKeel with a model server that answers as opts
// say, and tools for the agent.
func startKeelWith(t testing.TB, opts googletest.Options, tools ...tool.Tool) *keelEnv {
	t.Helper()
	return startKeelConfig(t, opts, nil, tools...)
}

// startKeelConfig is startKeelWith with the server's config changed by
// configure (when not nil) before it starts.
func startKeelConfig(t testing.TB, opts googletest.Options, configure func(*server.Config), tools ...tool.Tool) *keelEnv {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	gem := googletest.NewServer(t, opts)
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "test-key", BaseURL: gem.URL()})
	if err != nil {
		t.Fatal(err)
	}
	store := openStore(t)
	ws := workspace.NewResolved(localsandbox.NewResolver(t.TempDir(), localsandbox.PerResource, localsandbox.Options{Logger: quiet}))
	// As keel serve makes it: converters on, refusals remembered.
	refusals, err := processor.NewRememberedRefusals(store, processor.RefusalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "assistant", Name: "Assistant", Description: "reads what you send",
		Model: model, Memory: store, Workspace: ws, Tools: tools, Logger: quiet,
		Files: processor.UnsupportedFileOptions{Converters: convert.Default(), Refusals: refusals}})
	if err != nil {
		t.Fatal(err)
	}
	hs := serveKeel(t, server.Config{Agents: []*agent.Agent{a}, Memory: store, Logger: quiet}, configure)
	return &keelEnv{url: hs.URL, token: testToken, mem: store, gemini: gem, http: hs}
}

// openStore opens a SQLite store in a new file, closed when the test ends.
func openStore(t testing.TB) *sqlitestore.Store {
	t.Helper()
	store, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// testToken is the shared token of the test servers.
const testToken = "console-test-token"

// serveKeel starts the keel server of cfg, with the console and
// testToken, changed by configure (when not nil) before it starts.
func serveKeel(t testing.TB, cfg server.Config, configure func(*server.Config)) *httptest.Server {
	t.Helper()
	ui, err := console.New()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Console, cfg.Token = ui, testToken
	if configure != nil {
		configure(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs
}

// call calls the API with the token; the caller closes the body.
func (k *keelEnv) call(t testing.TB, path string) *http.Response {
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
	return resp
}

// get calls the API with the token and returns the status.
func (k *keelEnv) get(t testing.TB, path string) int {
	t.Helper()
	resp := k.call(t, path)
	resp.Body.Close()
	return resp.StatusCode
}

// newTab opens a headless chromium tab on a 1280×800 window. It accepts
// the confirmation a delete asks for, and dismisses any other dialog: one
// would be a page that ran what it should not have, which the tests
// check in its Dialogs. The browser's console line for the API's 401
// before the token is given is expected: it is how the page learns that
// it needs one.
func newTab(t testing.TB) *browsertest.Tab {
	t.Helper()
	return browsertest.New(t, browsertest.Options{
		Accept: func(kind, msg string) bool { return kind == "confirm" && strings.HasPrefix(msg, "Delete ") },
		Expected: func(m chromedp.ConsoleMessage) bool {
			return m.Source == "network" && strings.Contains(m.Text, "status of 401")
		},
	})
}

// signIn opens path and gives the token when the page asks for it.
func (k *keelEnv) signIn(tb *browsertest.Tab, path string) {
	tb.Do("open "+path, chromedp.Navigate(k.url+path), chromedp.WaitVisible(chromedp.CSS("#token-input")))
	tb.Do("give the token", chromedp.SendKeys(chromedp.CSS("#token-input"), k.token), chromedp.Click(chromedp.CSS("#token-form button")))
}

// unlabelled counts the form controls of the page that have no label.
const unlabelled = `[...document.querySelectorAll("input:not([type=hidden]), select, textarea")]
	.filter((e) => !e.closest("[hidden]") && e.labels.length === 0 && !e.getAttribute("aria-label")).length`

// shownHidden counts elements marked hidden that a style shows anyway.
const shownHidden = `[...document.querySelectorAll("[hidden]")].filter((e) => getComputedStyle(e).display !== "none").length`

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

// startKeelYAML is a keel server whose agents the keel.yaml text makes,
// built as keel serve builds them, with no provider's key and no
// KEEL_MODEL in the environment: an agent without a model, or whose
// model's key is missing, is built all the same and answers every call
// with what to set.
func startKeelYAML(t *testing.T, yaml string) *keelEnv {
	t.Helper()
	for _, v := range []string{provider.EnvModel, openai.EnvAPIKey, anthropic.EnvAPIKey, google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey} {
		t.Setenv(v, "")
	}
	f, err := config.Parse([]byte(yaml), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	store := openStore(t)
	quiet := slog.New(slog.DiscardHandler)
	built, err := f.Build(config.BuildOptions{
		// As keel serve resolves a model: a missing key does not stop it.
		ResolveModel: func(s string) (keel.Model, error) {
			m, err := provider.Resolve(s, provider.Options{})
			if provider.IsConfigError(err) {
				return nil, fmt.Errorf("%w: %w", config.ErrModelUnavailable, err)
			}
			return m, err
		},
		Memory: store, SandboxRoot: t.TempDir(), Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { built.Close() })
	hs := serveKeel(t, server.Config{Agents: built.Agents, Memory: store, Logger: quiet}, nil)
	return &keelEnv{url: hs.URL, token: testToken, mem: store, http: hs}
}
