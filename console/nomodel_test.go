package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/keel-go/keel/internal/browsertest"
)

// noModelYAML has an agent that names no model and one whose model's
// key is not set, as keel serve starts them with no key in its
// environment.
const noModelYAML = `agents:
  - id: assistant
    name: Assistant
    tools: [read_file]
  - id: analyst
    name: Analyst
    model: openai/gpt-4o-mini
    tools: [read_file]
`

// The Agents page warns of an agent that cannot answer, at a phone's
// width and a desktop's, before anyone sends it a message: what is
// missing (no model; the key of the model it names), in the server's
// words, which name the variable to set, and where to set a model
// (keel.yaml's model:). The model is "none", not a provider called so.
// The chat with such an agent shows the same warning above the message.
func TestConsoleAgentWithoutModel(t *testing.T) {
	k := startKeelYAML(t, noModelYAML)
	tb := newTab(t)
	k.signIn(tb, "/")
	for _, sc := range phoneAndDesktop {
		t.Run(sc.name, func(t *testing.T) {
			emulate(tb, sc)
			tb.Do("open the agents", chromedp.Navigate(k.url+"/"))
			tb.WaitFor("the agents", `document.querySelectorAll("[data-agent]").length === 2`)
			tb.Shot("agents-without-model-" + sc.name)
			warnings := browsertest.Eval[map[string]string](tb, `Object.fromEntries([...document.querySelectorAll("[data-agent]")].map((e) =>
				[e.dataset.agent, e.querySelector(".model-warning")?.textContent ?? ""]))`)
			for id, want := range map[string][]string{
				"assistant": {"This agent cannot answer", "no model configured", "KEEL_MODEL", "OPENAI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "keel.yaml", "model: "},
				"analyst":   {"This agent cannot answer", "openai/gpt-4o-mini", "no API key for openai", "OPENAI_API_KEY", "keel.yaml"},
			} {
				for _, w := range want {
					if !strings.Contains(warnings[id], w) {
						t.Errorf("Got(%s's warning) = %q; want it to say %q", id, warnings[id], w)
					}
				}
			}
			model := browsertest.Eval[string](tb, `document.querySelector('[data-agent="assistant"] .facts dd').textContent`)
			if strings.Contains(model, "unconfigured") || !strings.HasPrefix(model, "none") || !strings.Contains(model, "cannot answer") {
				t.Errorf("Got(assistant's model) = %q; want none, marked as unable to answer", model)
			}
			if got := browsertest.Eval[[]bool](tb, reachableJS+`(".model-warning")`); len(got) != 2 || !got[0] || !got[1] {
				t.Errorf("Got(warnings in view at %d px) = %v; want both", sc.width, got)
			}
			if w := browsertest.Eval[[]int](tb, sideways); w[0] > w[1] {
				t.Errorf("Got(page width at %d px) = %d; want no wider than the window (%d)", sc.width, w[0], w[1])
			}
			tb.Do("open the chat", chromedp.Navigate(k.url+"/agents/assistant/chat"), chromedp.WaitVisible(chromedp.CSS("textarea")))
			tb.Shot("chat-without-model-" + sc.name)
			if text := browsertest.Eval[string](tb, `document.querySelector(".composer .model-warning")?.textContent ?? ""`); !strings.Contains(text, "KEEL_MODEL") {
				t.Errorf("Got(chat's warning) = %q; want the agent's, naming KEEL_MODEL", text)
			}
		})
	}
	// A usable agent has no warning.
	ok := startKeel(t, "Fine.")
	tb2 := newTab(t)
	ok.signIn(tb2, "/")
	tb2.WaitFor("the agent", `document.querySelector('[data-agent="assistant"]') !== null`)
	if n := browsertest.Eval[int](tb2, `document.querySelectorAll(".model-warning").length`); n != 0 {
		t.Errorf("Got(warnings of an agent with a model) = %d; want none", n)
	}
	if errs := append(tb.ConsoleErrors(), tb2.ConsoleErrors()...); len(errs) != 0 {
		t.Errorf("Got(console errors) = %q; want none", errs)
	}
}
