package browsertest_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// page logs an error, lets an exception escape, asks to confirm, and
// offers a download: what a tab must record.
const page = `<!doctype html><title>t</title><a id="dl" href="/file" download>get</a><p id="out"></p>
<script>
console.error("expected: a 401");
console.error("broken: %s", "widget");
document.getElementById("out").textContent = confirm("Delete it?") ? "deleted" : "kept";
setTimeout(() => { throw new Error("late failure"); }, 0);
</script>`

var fileBytes = []byte("PK\x03\x04 bytes \x00\xff that are not text")

func TestTab(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="a.bin"`)
		w.Write(fileBytes)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	out := t.TempDir()
	tab := browsertest.New(t, browsertest.Options{
		OutputDir: out,
		Accept:    func(kind, msg string) bool { return kind == "confirm" && msg == "Delete it?" },
		Expected:  func(m chromedp.ConsoleMessage) bool { return strings.HasPrefix(m.Text, "expected:") },
	})
	tab.Do("open the page", chromedp.Navigate(hs.URL+"/"))
	tab.WaitFor("the confirm answered", `document.getElementById("out").textContent !== ""`)
	if got := browsertest.Eval[string](tab, `document.getElementById("out").textContent`); got != "deleted" {
		t.Errorf("Got(confirm answered) = %q; want accepted, so %q", got, "deleted")
	}
	if got := tab.Dialogs(); !slices.Equal(got, []string{"confirm: Delete it?"}) {
		t.Errorf("Got(Dialogs) = %q; want the confirm", got)
	}
	// The console's messages arrive on their own goroutine: poll for
	// them, with a deadline.
	var errs []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if errs = tab.ConsoleErrors(); len(errs) >= 2 {
			break
		}
		<-time.After(10 * time.Millisecond)
	}
	if len(errs) != 2 || !strings.Contains(errs[0], "broken: widget") || !strings.Contains(errs[1], "late failure") {
		t.Errorf("Got(ConsoleErrors) = %q; want the unexpected error and the exception", errs)
	}
	if got := tab.Download("the file", "#dl"); string(got) != string(fileBytes) {
		t.Errorf("Got(Download) = %q; want %q", got, fileBytes)
	}
	tab.Shot("page")
	if fi, err := os.Stat(filepath.Join(out, "page.png")); err != nil || fi.Size() == 0 || tab.OutputDir() != out {
		t.Errorf("Got(Shot in %s) = %v; want page.png written in %s", tab.OutputDir(), err, out)
	}
	if reqs := tab.Requests(); !slices.Contains(reqs, hs.URL+"/") {
		t.Errorf("Got(Requests) = %q; want the page among them", reqs)
	}
}

// The zero Options dismiss a dialog.
func TestTabDismissesDialogs(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<p id="out"></p><script>document.getElementById("out").textContent = confirm("Sure?") ? "yes" : "no";</script>`))
	}))
	t.Cleanup(hs.Close)
	tab := browsertest.New(t, browsertest.Options{OutputDir: t.TempDir()})
	tab.Do("open the page", chromedp.Navigate(hs.URL))
	tab.WaitFor("the confirm answered", `document.getElementById("out").textContent !== ""`)
	if got := browsertest.Eval[string](tab, `document.getElementById("out").textContent`); got != "no" {
		t.Errorf("Got(confirm with zero Options) = %q; want dismissed", got)
	}
}
