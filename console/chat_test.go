package console_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/internal/officetest"
)

// hostileName is a file name that is markup; hostileAnswer is a model
// answer that is. Both must be shown as the characters they are.
const (
	hostileName   = `<img src=x onerror=alert(1)>.xlsx`
	hostileAnswer = `I read **both** files. <script>window.pwned=1;alert(2)</script> <img src=x onerror=alert(3)> Done.`
)

type pageFacts struct {
	Path       string   `json:"path"`
	UserText   string   `json:"userText"`
	Names      []string `json:"names"`
	Sizes      []string `json:"sizes"`
	Digests    []string `json:"digests"`
	Acted      []string `json:"acted"`
	Stored     string   `json:"stored"`
	Answer     string   `json:"answer"`
	Hostile    int      `json:"hostile"`
	Pwned      bool     `json:"pwned"`
	Unlabelled int      `json:"unlabelled"`
}

const factsJS = `({
	path: location.pathname,
	userText: document.querySelector(".msg.user .md")?.textContent ?? "",
	names: [...document.querySelectorAll(".msg.user .file .file-name")].map((e) => e.textContent),
	sizes: [...document.querySelectorAll(".msg.user .file .size")].map((e) => e.textContent),
	digests: [...document.querySelectorAll(".msg.user .file .digest")].map((e) => e.textContent),
	acted: [...document.querySelectorAll(".msg.user .file .acted")].map((e) => e.textContent),
	stored: document.querySelector(".keel-acted")?.textContent ?? "",
	answer: document.querySelector(".msg.assistant .md")?.textContent ?? "",
	hostile: ` + hostileDOM + `,
	pwned: window.pwned === 1,
	unlabelled: ` + unlabelled + `,
})`

// The whole path of a user: open the console, give the token, send "Read
// these" with two spreadsheets to an agent whose model answers 502 to
// them, see the answer stream in and keel's recoveries arrive, reload the
// thread's own link and find the message, the files with their exact
// sizes and digests, and that keel uploaded them to the sandbox and why;
// download a file and get its bytes; list, download and delete the
// sandbox's files. Hostile names and answers stay text, nothing runs, and
// the console stays free of errors.
func TestConsoleChatWithFiles(t *testing.T) {
	k := startKeel(t, hostileAnswer)
	tb := newTab(t)
	t.Logf("screenshots in %s", tb.OutputDir())
	dir := t.TempDir()
	// A real workbook, which keel converts to text as well as uploading
	// it, and bytes that only claim to be one, which it uploads.
	rows := [][]any{{"name", "city", "note"}}
	for i := range 400 {
		rows = append(rows, []any{fmt.Sprintf("Lead %d", i), []string{"Berlin", "Paris", "Lagos"}[i%3], "<b>bold?</b>"})
	}
	leads, hostile := officetest.Workbook(t, "Leads", rows), spreadsheet(2, 5000)
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads)
	writeFile(t, filepath.Join(dir, hostileName), hostile)

	tb.Do("open the console", chromedp.Navigate(k.url+"/"), chromedp.WaitVisible(chromedp.CSS("#token-input")))
	tb.Shot("token")
	tb.Do("give the token",
		chromedp.SendKeys(chromedp.CSS("#token-input"), k.token),
		chromedp.Click(chromedp.CSS("#token-form button")),
		chromedp.WaitVisible(chromedp.CSS(`[data-agent="assistant"]`)))
	card := browsertest.Eval[string](tb, `document.querySelector('[data-agent="assistant"]').innerText`)
	for _, want := range []string{"Assistant", "google/gemini-2.5-flash", "one per resource", "prefill-error-handler", "unsupported-file-handler", "stream-error-retry-processor"} {
		if !strings.Contains(card, want) {
			t.Errorf("Got(agent card) = %q; want it to show %q", card, want)
		}
	}
	tb.Shot("agents")

	tb.Do("open the chat", chromedp.Click(chromedp.CSS(`[data-agent="assistant"] a.button`)), chromedp.WaitVisible(chromedp.CSS("textarea")))
	if n := browsertest.Eval[int](tb, unlabelled); n != 0 {
		t.Errorf("Got(unlabelled controls of the chat) = %d; want every control labelled", n)
	}
	// What the answer looked like while it streamed, before the thread is
	// shown again as stored.
	browsertest.Eval[chromedp.Void](tb, `window.__streamed = ""; new MutationObserver(() => {
		for (const el of document.querySelectorAll(".streaming")) if (el.textContent.length > window.__streamed.length) window.__streamed = el.textContent;
	}).observe(document.getElementById("main"), {subtree: true, childList: true, characterData: true}); 0`)
	browsertest.Eval[chromedp.Void](tb, watchRecoveries)
	tb.Do("write and attach",
		chromedp.SendKeys(chromedp.CSS("textarea"), "Read these"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{filepath.Join(dir, "leads.xlsx"), filepath.Join(dir, hostileName)}))
	tb.WaitFor("both files chosen", `document.querySelectorAll(".chosen li").length === 2`)
	// A file dropped on the form joins them; its Remove button takes it
	// out again.
	browsertest.Eval[chromedp.Void](tb, `(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(["a,b\n1,2\n"], "dropped.csv", {type: "text/csv"}));
		document.querySelector(".composer").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		return 0;
	})()`)
	tb.WaitFor("the dropped file chosen", `[...document.querySelectorAll(".chosen li")].map((e) => e.textContent).join("|").includes("dropped.csv")`)
	tb.Do("remove the dropped file", chromedp.Click(chromedp.CSS(".chosen li:nth-child(3) button")))
	tb.WaitFor("two files again", `document.querySelectorAll(".chosen li").length === 2`)
	tb.Shot("chat-attached")
	tb.Do("send", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
	tb.WaitFor("the live recovery", `window.__live.length > 0`)
	tb.WaitFor("the stored thread", `location.pathname.startsWith("/threads/") && document.querySelector(".msg.assistant:not(.live)") !== null`)
	tb.Shot("chat-answered")

	streamed := browsertest.Eval[string](tb, `window.__streamed`)
	if !strings.Contains(streamed, "<script>window.pwned=1;alert(2)</script>") || !strings.HasSuffix(streamed, "Done.") {
		t.Errorf("Got(streamed answer) = %q; want the model's whole answer, as text", streamed)
	}
	// What keel did, live, on the cards of the files it concerns.
	live := browsertest.Eval[string](tb, `window.__live.map((e) => e.closest(".file").textContent).join("\n")`)
	sumLeads, sumHostile := sha256.Sum256(leads), sha256.Sum256(hostile)
	for _, want := range []string{
		"leads.xlsx", hostileName, "uploaded to the sandbox at /home/user/uploads/", `converted to text (CSV, sheet "Leads"`,
		hex.EncodeToString(sumLeads[:]) + ".xlsx", hex.EncodeToString(sumHostile[:]) + ".xlsx", "google answered 502",
	} {
		if !strings.Contains(live, want) {
			t.Errorf("Got(live recovery) = %q; want it to show %q", live, want)
		}
	}

	// The thread's own link, loaded anew: the token is not asked again.
	threadURL := browsertest.Eval[string](tb, `location.href`)
	tb.Do("reload the thread", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".msg.user .file")))
	tb.WaitFor("the thread's files", `document.querySelectorAll(".msg.user .file .download").length === 2`)
	tb.Shot("thread")
	if w := browsertest.Eval[[]int](tb, `[document.documentElement.scrollWidth, window.innerWidth, window.innerHeight]`); w[0] > w[1] || w[1] != 1280 {
		t.Errorf("Got(page width at %d×%d) = %d; want a 1280 px window and nothing wider", w[1], w[2], w[0])
	}
	f := browsertest.Eval[pageFacts](tb, factsJS)
	u, _ := url.Parse(threadURL)
	if !strings.HasPrefix(u.Path, "/threads/console-") || f.Path != u.Path {
		t.Errorf("Got(thread link) = %s, after reload %s; want /threads/<id>, kept", u.Path, f.Path)
	}
	if f.UserText != "Read these" || strings.Join(f.Names, "|") != "leads.xlsx|"+hostileName {
		t.Errorf("Got(stored message) = %q with files %q; want Read these with leads.xlsx and %s", f.UserText, f.Names, hostileName)
	}
	wantSizes := []string{groupDigits(len(leads)) + " bytes", groupDigits(len(hostile)) + " bytes"}
	if strings.Join(f.Sizes, "|") != strings.Join(wantSizes, "|") {
		t.Errorf("Got(sizes) = %q; want %q", f.Sizes, wantSizes)
	}
	if strings.Join(f.Digests, "|") != hex.EncodeToString(sumLeads[:])+"|"+hex.EncodeToString(sumHostile[:]) {
		t.Errorf("Got(digests) = %q; want the files' SHA-256", f.Digests)
	}
	if len(f.Acted) != 2 || !strings.Contains(f.Acted[0], "converted to text") || !strings.Contains(f.Acted[0], "uploaded to the sandbox at /home/user/uploads/") ||
		!strings.Contains(f.Acted[0], hex.EncodeToString(sumLeads[:])+".xlsx") || !strings.Contains(f.Acted[0], "google answered 502") ||
		strings.Contains(f.Acted[1], "converted") || !strings.Contains(f.Acted[1], "uploaded to the sandbox at /home/user/uploads/") ||
		!strings.Contains(f.Acted[1], hex.EncodeToString(sumHostile[:])+".xlsx") {
		t.Errorf("Got(what keel did with each file) = %q; want the workbook converted and uploaded, the other uploaded, after google's 502", f.Acted)
	}

	// What the model read in the workbook's place, shown on demand.
	tb.Do("show the text", chromedp.Click(chromedp.CSS(".msg.user .file .view-text")), chromedp.WaitVisible(chromedp.CSS(".msg.user pre.converted")))
	tb.Shot("thread-converted-text")
	text := browsertest.Eval[string](tb, `document.querySelector(".msg.user pre.converted").textContent`)
	if !strings.Contains(text, `# Sheet "Leads": 401 rows × 3 columns`) || !strings.Contains(text, "Lead 0,Berlin,<b>bold?</b>") {
		t.Errorf("Got(converted text) = %.300q; want the sheet as CSV, markup as text", text)
	}
	// Each recovery is on its file's card, and nowhere else.
	if f.Stored != "" || len(f.Acted) != 2 || browsertest.Eval[int](tb, `document.querySelectorAll(".recovery").length`) != 2 {
		t.Errorf("Got(recoveries besides the file cards) = %q; want none: one on each card", f.Stored)
	}
	if !strings.Contains(f.Answer, "<script>window.pwned=1;alert(2)</script>") || !strings.Contains(f.Answer, "<img src=x onerror=alert(3)>") {
		t.Errorf("Got(answer) = %q; want its markup shown as text", f.Answer)
	}
	if f.Hostile != 0 || f.Pwned {
		t.Errorf("Got(hostile elements, script ran) = %d, %v; want none and no", f.Hostile, f.Pwned)
	}

	got := tb.Download("download leads.xlsx", ".msg.user .file .download")
	if !bytes.Equal(got, leads) {
		t.Errorf("Got(downloaded leads.xlsx) = %d bytes; want the %d bytes sent", len(got), len(leads))
	}

	// The sandbox holds both uploads: list, download, delete.
	tb.Do("open the sandbox", chromedp.Navigate(k.url+"/sandbox?agentId=assistant"), chromedp.WaitVisible(chromedp.CSS(".listing table")))
	tb.Shot("sandbox")
	paths := browsertest.Eval[[]string](tb, `[...document.querySelectorAll(".listing td .path")].map((e) => e.textContent)`)
	if len(paths) != 2 {
		t.Fatalf("Got(sandbox files) = %q; want the two uploads", paths)
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, "uploads/"+strings.TrimPrefix(u.Path, "/threads/")+"/") {
			t.Errorf("Got(sandbox file) = %q; want it under the thread's uploads", p)
		}
	}
	first := browsertest.Eval[string](tb, `document.querySelector(".listing td .path").textContent`)
	want := leads
	if strings.Contains(first, hex.EncodeToString(sumHostile[:])) {
		want = hostile
	}
	if got := tb.Download("download a sandbox file", ".listing tbody tr:first-child button"); !bytes.Equal(got, want) {
		t.Errorf("Got(sandbox download of %s) = %d bytes; want %d", first, len(got), len(want))
	}
	tb.Do("delete a sandbox file", chromedp.Click(chromedp.CSS(".listing tbody tr:first-child button.danger")))
	tb.WaitFor("the file gone", `document.querySelectorAll(".listing td .path").length === 1`)

	// The model's refusal of xlsx is remembered; it can be forgotten.
	tb.Do("open the refusals", chromedp.Navigate(k.url+"/refusals"), chromedp.WaitVisible(chromedp.CSS(".listing table")))
	tb.Shot("refusals")
	refusal := browsertest.Eval[string](tb, `document.querySelector(".listing tbody tr").textContent`)
	for _, want := range []string{"google/gemini-2.5-flash", xlsxType, "502"} {
		if !strings.Contains(refusal, want) {
			t.Errorf("Got(remembered refusal) = %q; want %q", refusal, want)
		}
	}
	tb.Do("forget it", chromedp.Click(chromedp.CSS(".listing tbody button.danger")))
	tb.WaitFor("no refusal left", `document.querySelector(".listing")?.textContent.includes("No refusal is remembered.")`)

	// The resource's threads: this one, with its message count.
	tb.Do("open the threads", chromedp.Navigate(k.url+"/threads"), chromedp.WaitVisible(chromedp.CSS("table.threads tbody tr a")))
	tb.WaitFor("the message count", `document.querySelector("table.threads tbody td.num")?.textContent === "2"`)
	tb.Shot("threads")
	row := browsertest.Eval[[]string](tb, `[...document.querySelectorAll("table.threads tbody tr:first-child td")].map((e) => e.textContent)`)
	href := browsertest.Eval[string](tb, `document.querySelector("table.threads tbody tr a").getAttribute("href")`)
	if len(row) != 3 || !strings.Contains(row[0], strings.TrimPrefix(u.Path, "/threads/")) || row[1] == "" || !strings.HasPrefix(href, u.Path) {
		t.Errorf("Got(threads row) = %q linking to %s; want the thread, its update time and 2 messages, linking to %s", row, href, u.Path)
	}

	// At phone width nothing is wider than the screen.
	tb.Do("phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Navigate(threadURL), chromedp.WaitVisible(chromedp.CSS(".msg.user .file")))
	tb.WaitFor("the thread at phone width", `document.querySelectorAll(".msg.user .file .download").length === 2`)
	tb.Shot("thread-phone")
	if w := browsertest.Eval[[]int](tb, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		t.Errorf("Got(page width at 390 px) = %d; want no wider than the screen (%d)", w[0], w[1])
	}

	dialogs, requests := tb.Dialogs(), tb.Requests()
	if len(dialogs) != 1 || !strings.HasPrefix(dialogs[0], "confirm: Delete ") {
		t.Errorf("Got(dialogs) = %q; want only the delete's confirmation", dialogs)
	}
	for _, r := range requests {
		if strings.Contains(r, k.token) {
			t.Errorf("Got(request %s) holding the token; want it sent as a header only", r)
		}
	}
	if errs := tb.ConsoleErrors(); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
