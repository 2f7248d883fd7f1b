package console_test

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// The Markdown renderer, run in the browser on what models write and on
// what an attacker would: each case gives the HTML the renderer must
// build. Markup in the source comes out as text (escaped in innerHTML),
// and only http, https and mailto links become links.
func TestMarkdownIsSafe(t *testing.T) {
	k := startKeel(t, "Fine.")
	tb := newTab(t)
	tb.Do("open the console", chromedp.Navigate(k.url+"/"), chromedp.WaitVisible(chromedp.CSS("#token-input")))
	prefix := browsertest.Eval[string](tb, `document.querySelector('script[type=module]').src.replace(/app\.js$/, "")`)
	cases := []struct{ name, src, want string }{
		{"emphasis", "**bold** and *em* and `code`", "<p><strong>bold</strong> and <em>em</em> and <code>code</code></p>"},
		{"nested emphasis", "**a *b* c**", "<p><strong>a <em>b</em> c</strong></p>"},
		{"html is text", "<b>x</b><script>alert(1)</script>", "<p>&lt;b&gt;x&lt;/b&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"event attribute", `<img src=x onerror="alert(1)">`, `<p>&lt;img src=x onerror="alert(1)"&gt;</p>`},
		{"javascript link", "[click](javascript:alert(1))", "<p>[click](javascript:alert(1))</p>"},
		{"data link", "[x](data:text/html,<script>alert(1)</script>)", "<p>[x](data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;)</p>"},
		{"http link", "[docs](https://example.com/a?b=1)", `<p><a href="https://example.com/a?b=1" rel="noopener noreferrer nofollow" target="_blank">docs</a></p>`},
		{"bare link", "see https://example.com/x.", `<p>see <a href="https://example.com/x" rel="noopener noreferrer nofollow" target="_blank">https://example.com/x</a>.</p>`},
		{"heading", "# Title <i>", `<h3 class="md-h">Title &lt;i&gt;</h3>`},
		{"code fence", "```html\n<script>alert(1)</script>\n```", `<pre><code data-lang="html">&lt;script&gt;alert(1)&lt;/script&gt;</code></pre>`},
		{"fence language is an attribute value", "```\"><img src=x onerror=alert(1)>\nx\n```", `<pre><code data-lang="&quot;&gt;&lt;img">x</code></pre>`},
		{"list", "- one\n- **two**\n\n1. a\n2. b", "<ul><li>one</li><li><strong>two</strong></li></ul><ol><li>a</li><li>b</li></ol>"},
		{"quote", "> said <u>", "<blockquote><p>said &lt;u&gt;</p></blockquote>"},
		{"table", "| a | b |\n|---|---|\n| 1 | <i>2</i> |", `<div class="table"><table><thead><tr><th scope="col">a</th><th scope="col">b</th></tr></thead><tbody><tr><td>1</td><td>&lt;i&gt;2&lt;/i&gt;</td></tr></tbody></table></div>`},
		{"lines", "one\ntwo", "<p>one<br>two</p>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, _ := json.Marshal(c.src)
			js := `import(` + jsString(prefix+"markdown.js") + `).then((m) => { const d = document.createElement("div"); d.append(m.renderMarkdown(` + string(src) + `)); return d.innerHTML; })`
			got, err := chromedp.Run(tb.Ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Got(renderMarkdown(%q)) = %s; want %s", c.src, got, c.want)
			}
		})
	}
	if n := browsertest.Eval[int](tb, hostileDOM); n != 0 {
		t.Errorf("Got(hostile elements in the page) = %d; want none", n)
	}
	if d := tb.Dialogs(); len(d) != 0 {
		t.Errorf("Got(dialogs) = %q; want none", d)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
