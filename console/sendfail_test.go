package console_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/server"
)

// sendLimit is the request body limit of the server the 413 case runs
// against; its big file is well over it once base64 in JSON.
const sendLimit = 64 << 10

// A turn the server refuses before it runs ends at once, at a phone's
// width and a desktop's: no "answering…" left, the error told with its
// status and the server's message, the message and files back in the
// composer, Send enabled. Sent again once the cause is gone, it is
// answered (401: a token the server accepts given; 413: the big file
// removed); a server that still cannot answer (503) says so again, with
// one mark of the unsent turn, not two.
func TestConsoleSendRefused(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "small.csv"), []byte("name,city\nAda,Berlin\n"))
	writeFile(t, filepath.Join(dir, "big.xlsx"), spreadsheet(9, 4*sendLimit))
	cases := []struct {
		name   string
		start  func(t *testing.T) *keelEnv
		before func(tb *browsertest.Tab, k *keelEnv) // once the chat is open
		file   string
		status string
		says   string
		retry  func(tb *browsertest.Tab, k *keelEnv) // what makes the next send work; nil when nothing can
	}{
		{
			name:   "503 no model",
			start:  func(t *testing.T) *keelEnv { return startKeelYAML(t, noModelYAML) },
			file:   "small.csv",
			status: "503 Service Unavailable",
			says:   "no model configured: set KEEL_MODEL=provider/model",
		},
		{
			name:  "401 token refused",
			start: func(t *testing.T) *keelEnv { return startKeel(t, "Answered.") },
			// The token the tab holds is no longer the server's, as after
			// the server's token was changed.
			before: func(tb *browsertest.Tab, k *keelEnv) {
				browsertest.Eval[chromedp.Void](tb, `sessionStorage.setItem("keel.token", "an-old-token"); 0`)
			},
			file:   "small.csv",
			status: "401 Unauthorized",
			says:   "missing or invalid token: send Authorization: Bearer <KEEL_API_TOKEN>",
			retry: func(tb *browsertest.Tab, k *keelEnv) {
				tb.Do("give the token", chromedp.WaitVisible(chromedp.CSS("#token-input")), chromedp.SendKeys(chromedp.CSS("#token-input"), k.token),
					chromedp.Click(chromedp.CSS("#token-form button")))
				tb.WaitFor("the token taken", `document.getElementById("token-panel").hidden`)
			},
		},
		{
			name: "413 too large",
			start: func(t *testing.T) *keelEnv {
				return startKeelConfig(t, googletest.Options{Text: "Answered."}, func(c *server.Config) { c.MaxBodyBytes = sendLimit })
			},
			file:   "big.xlsx",
			status: "413 Request Entity Too Large",
			says:   fmt.Sprintf("request body is over the %d byte limit: send smaller files", sendLimit),
			retry: func(tb *browsertest.Tab, k *keelEnv) {
				tb.Do("remove the big file", chromedp.Click(chromedp.CSS(".chosen li button")))
				tb.WaitFor("no file chosen", `document.querySelectorAll(".chosen li").length === 0`)
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := c.start(t)
			tb := newTab(t)
			k.signInHome(tb)
			for _, sc := range phoneAndDesktop {
				t.Run(sc.name, func(t *testing.T) {
					k.openChat(tb, sc)
					if c.before != nil {
						c.before(tb, k)
					}
					message := "Read this, " + sc.name
					tb.Do("write and attach", chromedp.SendKeys(chromedp.CSS("textarea"), message),
						chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{filepath.Join(dir, c.file)}))
					tb.WaitFor("the file chosen", `document.querySelectorAll(".chosen li").length === 1`)
					tb.Do("send", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
					tb.WaitFor("the turn ended", `document.querySelector(".send-error") !== null && !document.querySelector(".composer button[type=submit]").disabled`)
					tb.Shot("send-refused-" + strings.Fields(c.name)[0] + "-" + sc.name)
					checkRefused(t, tb, c.status, c.says, message, c.file)
					if c.retry == nil {
						tb.Do("send again", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
						tb.WaitFor("refused again", `document.querySelector(".send-error") !== null && !document.querySelector(".composer button[type=submit]").disabled && document.querySelectorAll(".msg.user").length === 1`)
						checkRefused(t, tb, c.status, c.says, message, c.file)
						return
					}
					c.retry(tb, k)
					tb.Do("send again", chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
					tb.WaitFor("the answer stored", `document.querySelector(".msg.assistant:not(.live) .md")?.textContent === "Answered."`)
					tb.Shot("send-refused-" + strings.Fields(c.name)[0] + "-sent-again-" + sc.name)
					if n := browsertest.Eval[int](tb, `document.querySelectorAll(".send-error, .msg.unsent").length`); n != 0 {
						t.Errorf("Got(marks of the refused send after it was sent again) = %d; want none", n)
					}
					if got := browsertest.Eval[string](tb, `document.querySelector(".msg.user .md")?.textContent ?? ""`); got != message {
						t.Errorf("Got(the message sent again) = %q; want %q", got, message)
					}
				})
			}
			for _, e := range tb.ConsoleErrors() {
				if !strings.Contains(e, "status of "+strings.Fields(c.status)[0]) {
					t.Errorf("Got(console error) = %q; want none but the browser's line for the %s", e, c.status)
				}
			}
		})
	}
}

// refusedPage is what checkRefused reads of the page.
type refusedPage struct {
	Errors   []string `json:"errors"`
	Busy     int      `json:"busy"`
	Unsent   int      `json:"unsent"`
	Text     string   `json:"text"`
	Chosen   []string `json:"chosen"`
	Disabled bool     `json:"disabled"`
	Main     string   `json:"main"`
}

// checkRefused checks the page after a refused send: the error told with
// the status and the server's message, nothing still answering, the turn
// marked as not sent once, the message and the file back in the
// composer, and Send enabled.
func checkRefused(t *testing.T, tb *browsertest.Tab, status, says, message, file string) {
	t.Helper()
	got := browsertest.Eval[refusedPage](tb, `({
		errors: [...document.querySelectorAll(".send-error")].map((e) => e.textContent),
		busy: document.querySelectorAll("[aria-busy=true]").length,
		unsent: document.querySelectorAll(".msg.user.unsent").length,
		text: document.querySelector("textarea").value,
		chosen: [...document.querySelectorAll(".chosen li")].map((e) => e.textContent),
		disabled: document.querySelector(".composer button[type=submit]").disabled,
		main: document.getElementById("main").textContent,
	})`)
	if len(got.Errors) != 1 || !strings.Contains(got.Errors[0], status) || !strings.Contains(got.Errors[0], says) {
		t.Errorf("Got(the error shown) = %q; want one, with %q and the server's %q", got.Errors, status, says)
	}
	if got.Busy != 0 || strings.Contains(got.Main, "answering…") {
		t.Errorf("Got(still answering) = %d busy, %q; want the turn ended", got.Busy, got.Main)
	}
	if got.Unsent != 1 {
		t.Errorf("Got(turns marked not sent) = %d; want 1", got.Unsent)
	}
	if got.Text != message || len(got.Chosen) != 1 || !strings.Contains(got.Chosen[0], file) || got.Disabled {
		t.Errorf("Got(composer) = %q with %q, Send disabled %v; want %q with %s, Send enabled", got.Text, got.Chosen, got.Disabled, message, file)
	}
}

// A turn whose answer stops midway, the server's connection cut while
// the model is still to answer, ends too: the answer says it stopped and
// why, nothing is left answering, and Send is enabled again. The message
// was sent, so the composer is empty.
func TestConsoleAnswerStopped(t *testing.T) {
	k := startKeelWith(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) {
		return providertest.Reply{ContentType: "text/event-stream", Stall: true}, true
	}})
	tb := newTab(t)
	k.signInHome(tb)
	for _, sc := range phoneAndDesktop {
		t.Run(sc.name, func(t *testing.T) {
			k.openChat(tb, sc)
			before := len(k.gemini.Requests())
			tb.Do("send", chromedp.SendKeys(chromedp.CSS("textarea"), "Hello"), chromedp.Click(chromedp.CSS(`.composer button[type=submit]`)))
			for deadline := time.Now().Add(30 * time.Second); len(k.gemini.Requests()) == before; {
				if time.Now().After(deadline) {
					t.Fatal("Got(model called) = no; want the turn running")
				}
				time.Sleep(20 * time.Millisecond)
			}
			k.http.CloseClientConnections()
			tb.WaitFor("the turn ended", `document.querySelector(".msg.assistant.failed") !== null && !document.querySelector(".composer button[type=submit]").disabled`)
			tb.Shot("answer-stopped-" + sc.name)
			got := browsertest.Eval[[]string](tb, `[document.querySelector(".msg.assistant.failed").textContent, String(document.querySelectorAll("[aria-busy=true], .msg.unsent").length), document.querySelector("textarea").value]`)
			if !strings.Contains(got[0], "stopped") || !strings.Contains(got[0], "The answer stopped: the connection to the server failed") || strings.Contains(got[0], "answering…") {
				t.Errorf("Got(the stopped answer) = %q; want it to say it stopped, and why", got[0])
			}
			if got[1] != "0" || got[2] != "" {
				t.Errorf("Got(busy or unsent marks, composer) = %s, %q; want none, and an empty composer: the message was sent", got[1], got[2])
			}
		})
	}
}
