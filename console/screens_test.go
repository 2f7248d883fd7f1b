package console_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// screen is a window the console must work in.
type screen struct {
	name          string
	width, height int64
	opts          []chromedp.EmulateViewportOption
}

// phoneAndDesktop are the widths each layout fix is checked at: a phone
// held upright and a desktop's window.
var phoneAndDesktop = []screen{
	{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}},
	{"desktop", 1440, 900, nil},
}

// emulate sizes the tab's window as sc.
func emulate(tb *browsertest.Tab, sc screen) {
	tb.Do("emulate "+sc.name, chromedp.EmulateViewport(sc.width, sc.height, sc.opts...))
}

// signInHome opens the Agents page and gives the token.
func (k *keelEnv) signInHome(tb *browsertest.Tab) {
	k.signIn(tb, "/")
	tb.WaitFor("the agents", `document.querySelector("[data-agent]") !== null`)
}

// openChat opens a new chat with the assistant in a window sized as sc.
func (k *keelEnv) openChat(tb *browsertest.Tab, sc screen) {
	emulate(tb, sc)
	tb.Do("open a chat", chromedp.Navigate(k.url+"/agents/assistant/chat"), chromedp.WaitVisible(chromedp.CSS("textarea")))
}

// sideways reports the document's scroll width and the width of the
// window's content: a page that scrolls sideways has the first wider.
const sideways = `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`

// reachableJS tells, for each element the selector names, whether a
// person can see and press it without scrolling sideways: the page is
// scrolled down to it (never across, neither the page nor a box that
// holds it), and then its box lies inside the window and its centre is
// the element itself, not something over it or a box clipping it.
const reachableJS = `((sel) => [...document.querySelectorAll(sel)].map((e) => {
	const top = e.getBoundingClientRect().top + scrollY;
	window.scrollTo(0, Math.max(0, top - innerHeight / 2));
	const r = e.getBoundingClientRect();
	const inside = r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth && r.top >= 0 && r.bottom <= innerHeight;
	const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
	return inside && hit !== null && (hit === e || e.contains(hit));
}))`

// getJSON calls the API with the token and decodes its JSON answer.
func (k *keelEnv) getJSON(t testing.TB, path string, v any) {
	t.Helper()
	resp := k.call(t, path)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Got(GET %s) = %d; want 200", path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("Got(GET %s) = %v; want JSON", path, err)
	}
}
