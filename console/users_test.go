package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/golang-jwt/jwt/v5"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

var usersSecret = []byte("console-users-test-secret-of-32-bytes")

func userToken(t *testing.T, sub string) string {
	t.Helper()
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": sub, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}).SignedString(usersSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// In per-user auth mode the console asks for the token once, keeps it for
// the tab (sessionStorage, never a URL or localStorage), and shows the
// caller's own threads only: the resource is the token's, not a choice,
// another user's thread is "not found", a chat is stored as the caller's,
// remembered refusals are listed with no way to forget them, and another
// user's token, given in the same tab, shows that user's page.
func TestConsolePerUser(t *testing.T) {
	v, err := jwtauth.New(jwtauth.Options{Secret: usersSecret})
	if err != nil {
		t.Fatal(err)
	}
	k := startKeelConfig(t, googletest.Options{Text: "Hello, Alice."}, func(c *server.Config) { c.Users = v })
	ctx := context.Background()
	for _, who := range []string{"alice", "bob"} {
		if _, err := k.mem.CreateThread(ctx, memory.Thread{ID: who + "-1", ResourceID: who, Title: who + "'s thread"}); err != nil {
			t.Fatal(err)
		}
		if _, err := k.mem.SaveMessages(ctx, who, who+"-1", []keel.Message{keel.UserText(who + "'s secret")}); err != nil {
			t.Fatal(err)
		}
	}
	alice := userToken(t, "alice")
	tb := newTab(t)

	tb.Do("open the threads", chromedp.Navigate(k.url+"/threads"), chromedp.WaitVisible(chromedp.CSS("#token-input")))
	tb.Do("give alice's token", chromedp.SendKeys(chromedp.CSS("#token-input"), alice), chromedp.Click(chromedp.CSS("#token-form button")),
		chromedp.WaitVisible(chromedp.CSS("table.threads tbody tr a")))
	tb.Shot("users-threads")
	rows := browsertest.Eval[[]string](tb, `[...document.querySelectorAll("table.threads tbody tr")].map((e) => e.textContent)`)
	if len(rows) != 1 || !strings.Contains(rows[0], "alice's thread") {
		t.Errorf("Got(threads) = %q; want alice's only", rows)
	}
	if n := browsertest.Eval[int](tb, shownHidden); n != 0 {
		t.Errorf("Got(hidden elements shown) = %d; want none (one page of threads: no Show more)", n)
	}
	field := browsertest.Eval[[]any](tb, `[document.getElementById("resource").value, document.getElementById("resource").readOnly]`)
	if field[0] != "alice" || field[1] != true {
		t.Errorf("Got(resource field) = %v; want alice, read-only", field)
	}

	// Another user's thread is as missing as one that does not exist.
	tb.Do("open bob's thread", chromedp.Navigate(k.url+"/threads/bob-1"), chromedp.WaitVisible(chromedp.CSS(".transcript .empty")))
	if text := browsertest.Eval[string](tb, `document.getElementById("main").textContent`); !strings.Contains(text, "Thread not found") || strings.Contains(text, "bob's secret") {
		t.Errorf("Got(bob's thread as alice) = %q; want Thread not found, nothing of bob's", text)
	}

	// The tab keeps the token: her own thread, loaded anew, is shown
	// without asking again.
	tb.Do("open her thread", chromedp.Navigate(k.url+"/threads/alice-1"), chromedp.WaitVisible(chromedp.CSS(".msg.user .md")))
	if asked := browsertest.Eval[bool](tb, `!document.getElementById("token-panel").hidden`); asked {
		t.Errorf("Got(token asked again on a new load) = true; want it kept for the tab")
	}
	kept := browsertest.Eval[[]string](tb, `[sessionStorage.getItem("keel.token") || "", JSON.stringify(localStorage), document.cookie]`)
	if kept[0] != alice || strings.Contains(kept[1], alice) || kept[2] != "" {
		t.Errorf("Got(where the token is kept) = session %t, local %q, cookie %q; want the tab's sessionStorage only", kept[0] == alice, kept[1], kept[2])
	}

	// A chat is hers.
	tb.Do("chat", chromedp.Navigate(k.url+"/agents/assistant/chat"), chromedp.WaitVisible(chromedp.CSS("textarea")),
		chromedp.SendKeys(chromedp.CSS("textarea"), "Hello"), chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
	tb.WaitFor("the stored answer", `location.pathname.startsWith("/threads/") && document.querySelector(".msg.assistant:not(.live) .md")?.textContent === "Hello, Alice."`)
	tid := strings.TrimPrefix(browsertest.Eval[string](tb, `location.pathname`), "/threads/")
	if th, err := k.mem.GetThread(ctx, "alice", tid); err != nil || th.ResourceID != "alice" {
		t.Errorf("Got(the chat's thread %s) = %+v, %v; want it alice's", tid, th, err)
	}
	if q := browsertest.Eval[string](tb, `location.search`); strings.Contains(q, "resourceId") {
		t.Errorf("Got(thread link) = %s; want no resource in it: the token names it", q)
	}

	// Refusals: listed; forgetting is the server's own token's.
	tb.Do("open the refusals", chromedp.Navigate(k.url+"/refusals"), chromedp.WaitVisible(chromedp.CSS(".listing p")))
	tb.Shot("users-refusals")
	if text := browsertest.Eval[string](tb, `document.getElementById("main").textContent`); !strings.Contains(text, "only the server's own token can forget") {
		t.Errorf("Got(refusals page as a user) = %q; want it to say who may forget", text)
	}
	if n := browsertest.Eval[int](tb, `document.querySelectorAll("main button.danger").length`); n != 0 {
		t.Errorf("Got(Forget buttons for a user) = %d; want none", n)
	}

	// Another user in the same tab: the token forgotten, bob's given, the
	// page is his.
	bob := userToken(t, "bob")
	tb.Do("open the threads again", chromedp.Navigate(k.url+"/threads"), chromedp.WaitVisible(chromedp.CSS("table.threads tbody tr a")))
	tb.Do("forget the token", chromedp.Click(chromedp.CSS("#token-button")), chromedp.WaitVisible(chromedp.CSS("#token-input")))
	tb.Do("give bob's token", chromedp.SendKeys(chromedp.CSS("#token-input"), bob), chromedp.Click(chromedp.CSS("#token-form button")))
	tb.WaitFor("bob's threads", `document.getElementById("resource").value === "bob" && document.querySelector("table.threads tbody tr a")?.textContent === "bob's thread"`)
	if rows := browsertest.Eval[[]string](tb, `[...document.querySelectorAll("table.threads tbody tr")].map((e) => e.textContent)`); len(rows) != 1 || strings.Contains(rows[0], "alice") {
		t.Errorf("Got(threads with bob's token) = %q; want bob's only", rows)
	}

	for _, r := range tb.Requests() {
		if strings.Contains(r, alice) || strings.Contains(r, bob) {
			t.Errorf("Got(request %s) holding the token; want it sent as a header only", r)
		}
	}
	// The browser logs the 404 of bob's thread; anything else is a fault.
	for _, e := range tb.ConsoleErrors() {
		if !strings.Contains(e, "status of 404") || !strings.Contains(e, "/api/memory/threads/bob-1") {
			t.Errorf("Got(console error) = %q; want none but bob's thread's 404", e)
		}
	}
}
