package console_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/memory"
)

// bigThread stores a thread of n messages as a real conversation looks:
// questions, answers in Markdown, now and then a file.
func bigThread(t testing.TB, mem memory.Store, id string, n int) {
	t.Helper()
	ctx := context.Background()
	if _, err := mem.CreateThread(ctx, memory.Thread{ID: id, ResourceID: "studio", Title: "A long thread"}); err != nil {
		t.Fatal(err)
	}
	msgs := make([]keel.Message, 0, n)
	for i := range n {
		if i%2 == 0 {
			parts := []keel.Part{keel.TextPart{Text: fmt.Sprintf("Question %d: what does row %d of the sheet say?", i/2, i)}}
			if i%20 == 0 {
				parts = append(parts, keel.FilePart{Data: spreadsheet(byte(i), 2000), MediaType: xlsxType, Filename: fmt.Sprintf("sheet-%d.xlsx", i)})
			}
			msgs = append(msgs, keel.Message{Role: keel.RoleUser, Parts: parts})
			continue
		}
		msgs = append(msgs, keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: fmt.Sprintf(
			"## Row %d\n\nThe row holds **three** values, in `column B`:\n\n- first, *low*\n- second\n- third, see [the docs](https://example.com/docs)\n\n| a | b |\n|---|---|\n| %d | %d |\n", i, i, i*2)}}})
	}
	if _, err := mem.SaveMessages(ctx, "studio", id, msgs); err != nil {
		t.Fatal(err)
	}
}

// transferredJS sums what the page's load moved over the network: the
// document and every resource (assets and API answers), compressed as
// sent, headers included.
const transferredJS = `(() => {
	const nav = performance.getEntriesByType("navigation")[0];
	const res = performance.getEntriesByType("resource");
	const sum = (list) => list.reduce((n, e) => n + e.transferSize, 0);
	return {
		page: nav ? nav.transferSize : 0,
		assets: sum(res.filter((e) => e.initiatorType !== "fetch")),
		api: sum(res.filter((e) => e.initiatorType === "fetch")),
		count: res.length + 1,
	};
})()`

type transferred struct {
	Page, Assets, API, Count int
}

func (x transferred) total() int { return x.Page + x.Assets + x.API }

// consolePages are the console's pages, each with what tells it is shown,
// as the tests open them: a keelEnv with the 200-message thread "big".
var consolePages = []struct{ name, path, ready string }{
	{"agents", "/", `document.querySelector('[data-agent="assistant"]') !== null`},
	{"threads", "/threads", `document.querySelector("table.threads tbody td.num") !== null`},
	{"200-message thread", "/threads/big", `document.querySelectorAll(".transcript .msg").length === 200 && document.querySelector("textarea") !== null`},
	{"chat", "/agents/assistant/chat", `document.querySelector("textarea") !== null`},
	{"sandbox", "/sandbox?agentId=assistant", `document.querySelector(".listing p, .listing table") !== null`},
	{"refusals", "/refusals", `document.querySelector(".listing p, .listing table") !== null`},
}

// pagesEnv is the keel server of consolePages, and a tab signed in to it.
func pagesEnv(t testing.TB) (*keelEnv, *browsertest.Tab) {
	t.Helper()
	k := startKeel(t, "Fine.")
	bigThread(t, k.mem, "big", 200)
	tb := newTab(t)
	k.signIn(tb, "/")
	tb.WaitFor("the agents", `document.querySelector('[data-agent="assistant"]') !== null`)
	return k, tb
}

// coldLoad opens path in a browser that has nothing cached, as a link
// opened for the first time, waits until ready is true, and returns what
// the load moved.
func coldLoad(t testing.TB, tb *browsertest.Tab, k *keelEnv, path, ready string) transferred {
	t.Helper()
	if _, err := chromedp.Call(tb.Ctx, network.ClearBrowserCache, cdp.Empty{}); err != nil {
		t.Fatalf("Got(clear the browser's cache) = %v", err)
	}
	tb.Do("open "+path, chromedp.Navigate(k.url+path))
	tb.WaitFor(path+" shown", ready)
	return browsertest.Eval[transferred](tb, transferredJS)
}

// Each page of the console, loaded cold (nothing cached), moves at most
// 100 KiB over the network: the document, its assets (gzipped) and the
// API's answers, headers included. The biggest answer is a 200-message
// thread's. Every page's controls are labelled, and what it hides is
// not shown. The figures are logged for BENCHMARKS.md, and kept in
// testoutput/transfer.txt.
func TestConsolePageTransfer(t *testing.T) {
	k, tb := pagesEnv(t)
	report := []string{"console pages, cold load, " + time.Now().UTC().Format(time.RFC3339)}
	for _, pg := range consolePages {
		x := coldLoad(t, tb, k, pg.path, pg.ready)
		line := fmt.Sprintf("%-20s %6d bytes (document %d, assets %d, API %d) in %d requests", pg.name, x.total(), x.Page, x.Assets, x.API, x.Count)
		report = append(report, line)
		if n := browsertest.Eval[int](tb, shownHidden); n != 0 {
			t.Errorf("Got(hidden elements shown on the %s page) = %d; want none", pg.name, n)
		}
		if n := browsertest.Eval[int](tb, unlabelled); n != 0 {
			t.Errorf("Got(unlabelled controls of the %s page) = %d; want every control labelled", pg.name, n)
		}
		if x.total() > 100<<10 || x.Page == 0 || x.Assets == 0 {
			t.Errorf("Got(%s transferred) = %d bytes (%+v); want at most 100 KiB, document and assets counted", pg.name, x.total(), x)
		}
	}
	tb.Shot("thread-200")
	t.Log(strings.Join(report, "\n"))
	if err := os.WriteFile(filepath.Join(tb.OutputDir(), "transfer.txt"), []byte(strings.Join(report, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}

// BenchmarkConsoleThreadRender opens a stored 200-message thread in
// headless chromium, its assets cached as a returning user's are, and
// reports how long the page took to render it: from its messages fetched
// to their DOM built, styled and laid out (ms/render), and from the
// navigation to that point (ms/load). Run it with
//
//	go test -run '^$' -bench ConsoleThreadRender -benchtime 20x -count 3 ./console/
func BenchmarkConsoleThreadRender(b *testing.B) {
	k, tb := pagesEnv(b)
	var render, load float64
	n := 0
	for b.Loop() {
		tb.Do("open the thread", chromedp.Navigate(k.url+"/threads/big"))
		// The whole view, composer included, before the next load: a
		// load must not cut the last one's calls short.
		tb.WaitFor("the thread rendered", `performance.getEntriesByName("keel-thread-render").length > 0 && document.querySelector("textarea") !== null`)
		m := browsertest.Eval[[]float64](tb, `(() => { const m = performance.getEntriesByName("keel-thread-render")[0];
			return [m.duration, m.startTime + m.duration, document.querySelectorAll(".transcript .msg").length]; })()`)
		if m[2] != 200 {
			b.Fatalf("Got(messages shown) = %v; want 200", m[2])
		}
		render += m[0]
		load += m[1]
		n++
	}
	b.ReportMetric(render/float64(n), "ms/render")
	b.ReportMetric(load/float64(n), "ms/load")
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		b.Errorf("Got(console errors) = %q; want none", errs)
	}
}
