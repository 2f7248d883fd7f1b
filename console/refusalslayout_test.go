package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/memory"
)

// longURL is evidence as providers write it: a message with a long link
// in it, which has nowhere to break.
const longURL = "Request contains an invalid argument. See https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:" +
	"streamGenerateContent?alt=sse&upload_id=AEnB2UoXq7vT3kLm9pQ2wZr8sYd4fGh6jK1lN0bV5cX3zA7eR9tU2iO4pS6dF8gH0jK2lM4nB6vC8xZ1qW3eR5tY7uI9oP" +
	"&uploadType=resumable&trace=ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"

// The Remembered refusals page, with evidence that holds a long link and
// a long unbroken token, fits the window at a phone's width and at a
// desktop's: the page does not scroll sideways, each Forget button is in
// view once the page is scrolled down to it (not off the right edge, nor
// in a box to scroll across), and pressing one forgets that refusal.
func TestConsoleRefusalsFit(t *testing.T) {
	k := startKeel(t, "Fine.")
	tb := newTab(t)
	k.signIn(tb, "/refusals")
	ctx := context.Background()
	ledger := k.mem.(memory.RefusalLedger)
	for _, sc := range phoneAndDesktop {
		t.Run(sc.name, func(t *testing.T) {
			now := time.Now().UTC().Truncate(time.Millisecond)
			refusals := []memory.Refusal{
				{Provider: "google", Model: "gemini-2.5-flash", MediaType: xlsxType, Status: 400, Reason: longURL},
				{Provider: "openai", Model: "gpt-4o-mini-2024-07-18", MediaType: "application/vnd.oasis.opendocument.spreadsheet",
					Status: 400, Reason: "Invalid file data: " + strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo", 10)},
			}
			for _, r := range refusals {
				r.LearnedAt, r.ExpiresAt = now, now.Add(24*time.Hour)
				if err := ledger.RecordRefusal(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
			emulate(tb, sc)
			tb.Do("open the refusals", chromedp.Navigate(k.url+"/refusals"))
			tb.WaitFor("both refusals", `document.querySelectorAll(".listing button.danger").length === 2`)
			tb.Shot("refusals-long-evidence-" + sc.name)
			if w := browsertest.Eval[[]int](tb, sideways); w[0] > w[1] {
				t.Errorf("Got(page width at %d px) = %d; want no wider than the window (%d): the page must not scroll sideways", sc.width, w[0], w[1])
			}
			if got := browsertest.Eval[[]bool](tb, reachableJS+`(".listing button.danger")`); fmt.Sprint(got) != "[true true]" {
				t.Errorf("Got(each Forget in view and pressable at %d px) = %v; want [true true]", sc.width, got)
			}
			if text := browsertest.Eval[string](tb, `document.querySelector(".listing").textContent`); !strings.Contains(text, longURL) {
				t.Errorf("Got(evidence shown) = %.300q; want the whole of it, link included", text)
			}
			tb.Do("forget the first", chromedp.Click(chromedp.CSS(".listing tbody tr:first-child button.danger")))
			tb.WaitFor("one refusal left", `document.querySelectorAll(".listing button.danger").length === 1`)
			var left struct {
				Refusals []struct{ Provider string } `json:"refusals"`
			}
			k.getJSON(t, "/api/keel/refusals", &left)
			if len(left.Refusals) != 1 {
				t.Errorf("Got(refusals left on the server) = %d; want 1", len(left.Refusals))
			}
			tb.Do("forget the other", chromedp.Click(chromedp.CSS(".listing tbody button.danger")))
			tb.WaitFor("none left", `document.querySelector(".listing")?.textContent.includes("No refusal is remembered.")`)
		})
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
