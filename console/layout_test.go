package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// Every page is usable at 1280×800 and at a phone's width: nothing is
// wider than the screen (the page does not scroll sideways), and a
// screenshot of each is kept.
func TestConsoleLayout(t *testing.T) {
	k, tb := pagesEnv(t)
	screens := []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"desktop", 1280, 800, nil},
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile}},
	}
	for _, sc := range screens {
		t.Run(sc.name, func(t *testing.T) {
			tb.Do("emulate "+sc.name, chromedp.EmulateViewport(sc.width, sc.height, sc.opts...))
			for _, pg := range consolePages {
				tb.Do("open "+pg.path, chromedp.Navigate(k.url+pg.path))
				tb.WaitFor(pg.name+" shown", pg.ready)
				tb.Shot(sc.name + "-" + strings.ReplaceAll(pg.name, " ", "-"))
				if w := browsertest.Eval[[]int](tb, `[document.documentElement.scrollWidth, window.innerWidth]`); w[1] != int(sc.width) || w[0] > w[1] {
					t.Errorf("Got(%s page width in a %d px window) = %d (window %d); want no wider than the window", pg.name, sc.width, w[0], w[1])
				}
			}
		})
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
