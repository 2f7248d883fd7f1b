package studio_test

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
func bigThread(t *testing.T, mem memory.Store, id string, n int) {
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

// The studio's figures, for BENCHMARKS.md: bytes each page moves, and how
// long a 200-message thread takes to render (build its DOM, style and
// lay it out) in headless chromium. They are reported, not asserted as
// times: the machine is shared. Only the page budget is checked.
func TestStudioFigures(t *testing.T) {
	k := startKeel(t, "Fine.")
	bigThread(t, k.mem, "big", 200)
	tb := newTab(t)

	k.signIn(tb, "/")
	tb.Do("agents", chromedp.WaitVisible(chromedp.CSS(`[data-agent="assistant"]`)))
	agents := browsertest.Eval[transferred](tb, transferredJS)

	var figures []string
	var renders []float64
	var first transferred
	for run := range 5 {
		if run == 0 {
			// The first load of the thread is a cold one, as for a
			// link opened in a new browser.
			if _, err := chromedp.Call(tb.Ctx, network.ClearBrowserCache, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
		}
		tb.Do("open the thread", chromedp.Navigate(k.url+"/threads/big"), chromedp.WaitVisible(chromedp.CSS(".transcript .msg")))
		tb.WaitFor("the thread rendered", `performance.getEntriesByName("keel-thread-render").length > 0`)
		n := browsertest.Eval[int](tb, `document.querySelectorAll(".transcript .msg").length`)
		if n != 200 {
			t.Fatalf("Got(messages shown) = %d; want 200", n)
		}
		ms := browsertest.Eval[float64](tb, `performance.getEntriesByName("keel-thread-render")[0].duration`)
		since := browsertest.Eval[float64](tb, `performance.getEntriesByName("keel-thread-render")[0].startTime + performance.getEntriesByName("keel-thread-render")[0].duration`)
		renders = append(renders, ms)
		if run == 0 {
			first = browsertest.Eval[transferred](tb, transferredJS)
			tb.Shot("thread-200")
		}
		figures = append(figures, fmt.Sprintf("run %d: render %.1f ms, from navigation to rendered %.1f ms", run, ms, since))
	}
	if h := browsertest.Eval[int](tb, unlabelled); h != 0 {
		t.Errorf("Got(unlabelled controls) = %d; want none", h)
	}
	lo, hi := renders[0], renders[0]
	for _, r := range renders {
		lo, hi = min(lo, r), max(hi, r)
	}
	report := []string{
		"studio figures, " + time.Now().UTC().Format(time.RFC3339),
		fmt.Sprintf("agents page, first load: %d bytes (document %d, assets %d, API %d) in %d requests", agents.total(), agents.Page, agents.Assets, agents.API, agents.Count),
		fmt.Sprintf("200-message thread, cold load of its link: %d bytes (document %d, assets %d, API %d) in %d requests", first.total(), first.Page, first.Assets, first.API, first.Count),
		fmt.Sprintf("200-message thread render: %.1f to %.1f ms over %d loads", lo, hi, len(renders)),
	}
	report = append(report, figures...)
	t.Log(strings.Join(report, "\n"))
	p := filepath.Join(tb.OutputDir(), "figures.txt")
	if err := os.WriteFile(p, []byte(strings.Join(report, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("figures in %s", p)
	for name, x := range map[string]transferred{"agents page": agents, "200-message thread": first} {
		if x.total() > 100<<10 || x.Assets == 0 && name == "agents page" {
			t.Errorf("Got(%s transferred) = %d bytes (%+v); want at most 100 KiB, assets counted", name, x.total(), x)
		}
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
