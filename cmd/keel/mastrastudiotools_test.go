package main_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
	"github.com/keel-go/keel/provider/google/googletest"
)

// TestMastraStudioTools drives the real Mastra Studio's Tools page in
// chromium against keel serve whose agent has tools of a real
// server-everything: the page lists them, and a tool picked there runs
// with the input typed into its form, the result shown. Studio's MCP
// server page lists the server's tools, and its image tool runs there,
// the image shown as a file. No page error, no failed call to keel.
// Screenshots go to cmd/keel/testoutput/.
func TestMastraStudioTools(t *testing.T) {
	node := studioSetup(t)
	browsertest.Chromium(t)
	gem := googletest.NewServer(t, googletest.Options{})
	port := freePort(t)
	studioOrigin := "http://localhost:" + port
	dir := t.TempDir()
	mcpConfig(t, dir, "list_files", "everything/echo", "everything/get-tiny-image")
	s := startServe(t, dir, geminiEnv(gem, "KEEL_CORS_ORIGINS="+studioOrigin), loopback...)
	studioOut := startStudio(t, node, s, port)

	calls := &keelCalls{keelURL: s.url, urls: map[network.RequestID]string{}, missing: map[string]bool{}}
	tab := browsertest.New(t, browsertest.Options{Width: 1400, Height: 900, Expected: calls.expected})
	if err := chromedp.Listen(tab.Ctx, calls.listen); err != nil {
		t.Fatalf("Got(listen to the tab) = %v", err)
	}
	// click does act, a click on the element find (a JavaScript
	// expression) finds, once a person could: Studio's pages slide in,
	// and a click at where an element is about to be lands on the page
	// behind it.
	click := func(what, find string, act chromedp.Action[chromedp.Void]) {
		t.Helper()
		tab.WaitFor(what+": still, on top", fmt.Sprintf(`(() => {
			const el = %s;
			if (!el || document.getAnimations().some((a) => a.playState === "running")) return false;
			const r = el.getBoundingClientRect();
			const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
			return hit !== null && el.contains(hit);
		})()`, find))
		tab.Do(what, act)
	}
	clickCSS := func(what, css string) {
		t.Helper()
		click(what, fmt.Sprintf("document.querySelector(%q)", css), chromedp.Click(chromedp.CSS(css)))
	}
	clickXPath := func(what, xpath string) {
		t.Helper()
		click(what, fmt.Sprintf("document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue", xpath), chromedp.Click(chromedp.Search(xpath)))
	}
	waitText := func(what string, texts ...string) {
		t.Helper()
		waitTexts(tab, what, texts...)
	}

	tab.Do("open the tools page", chromedp.Navigate(studioOrigin+"/tools"))
	waitText("the tools page listing the MCP tools", "everything_echo", "everything_get-tiny-image", "list_files")
	tab.Shot("mastra-studio-tools")
	// Pick the MCP tool, type its input, run it: the server's answer shows.
	const message = "typed into Studio 4471"
	clickXPath("pick everything_echo", `//*[normalize-space(text())="everything_echo"]`)
	tab.WaitFor("the tool's form", `location.pathname.endsWith("/tools/everything_echo") && document.querySelector("form textarea#message") !== null`)
	clickCSS("click into the message", `form textarea#message`)
	tab.Do("type the message", chromedp.SendKeys(chromedp.CSS(`form textarea#message`), message))
	clickCSS("run the tool", `form button[type="submit"]`)
	waitText("the tool's result", `"Echo: `+message+`"`)
	tab.Shot("mastra-studio-tool-echo")

	// The MCP server's page lists its tools an agent has; its image tool
	// runs there, the image coming back as a file.
	tab.Do("open the MCP servers page", chromedp.Navigate(studioOrigin+"/mcps"))
	clickCSS("open everything's page", `a[href$="/mcps/everything"]`)
	waitText("everything's tools", "Available Tools", "echo", "get-tiny-image", "Returns a tiny MCP logo image.")
	tab.Shot("mastra-studio-mcp-server")
	clickXPath("pick get-tiny-image", `//a[normalize-space(text())="get-tiny-image"]`)
	tab.WaitFor("the tool's form", `location.pathname.endsWith("/mcps/everything/tools/get-tiny-image") && document.querySelector("form button[type=submit]") !== null`)
	clickCSS("run the image tool", `form button[type="submit"]`)
	waitText("the image in the result", `"result"`, `"mimeType": "image/png"`, `"filename": "everything_get-tiny-image-1.png"`,
		`"output": "Here's the image you requested:\nThe image above is the MCP logo."`)
	tab.Shot("mastra-studio-mcp-tool-image")

	studioClean(t, tab, calls, studioOut, s)
}
