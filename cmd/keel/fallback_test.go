package main_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// generated is what the tests read of a generate answer.
type generated struct {
	Text     string `json:"text"`
	Response struct {
		ModelID string `json:"modelId"`
		Model   string `json:"model"`
	} `json:"response"`
}

func generate(t *testing.T, url, agentID, body string) generated {
	t.Helper()
	code, out := call(t, "POST", url+"/api/agents/"+agentID+"/generate", "", body)
	if code != 200 {
		t.Fatalf("Got(generate %s) = %d %s; want 200", agentID, code, out)
	}
	var g generated
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatalf("Got(generate %s) = %s: %v; want JSON", agentID, out, err)
	}
	return g
}

func callsOf(srv *googletest.Server, model string) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Model == model {
			n++
		}
	}
	return n
}

// TestServeFallbackModels runs keel serve with two agents on lists of
// Gemini models: the first model of one answers 503 to everything, so
// the second answers; the other's first model answers 502 to a
// spreadsheet, which the unsupported-file handler repairs on that same
// model.
func TestServeFallbackModels(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType}, Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		if r.Model == "gemini-2.5-pro" {
			return providertest.Reply{Status: 503, Body: googletest.ErrorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")}, true
		}
		return providertest.Reply{}, false
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(`agents:
  - id: fallback
    model: [google/gemini-2.5-pro, google/gemini-2.5-flash]
    sandbox: none
    streamRetry: {maxRetries: 1, delay: 10ms}
  - id: repair
    model: [google/gemini-2.5-flash, google/gemini-2.0-flash]
    sandbox: none
`))
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	if !strings.Contains(s.Stderr(), "agents: fallback (google/gemini-2.5-pro, google/gemini-2.5-flash)") {
		t.Errorf("Got(start-up message) = %q; want the list of models", s.Stderr())
	}

	g := generate(t, s.url, "fallback", `{"messages":"Hi","memory":{"thread":"th-f","resource":"u1"}}`)
	if g.Text != googletest.DefaultText || g.Response.Model != "google/gemini-2.5-flash" {
		t.Errorf("Got(answer) = %q by %q; want the second model's, named", g.Text, g.Response.Model)
	}
	// The stream retry's one retry, on the first model, then the second.
	if p, f := callsOf(srv, "gemini-2.5-pro"), callsOf(srv, "gemini-2.5-flash"); p != 2 || f != 1 {
		t.Errorf("Got(calls) = %d of gemini-2.5-pro, %d of gemini-2.5-flash; want 2, then 1", p, f)
	}
	code, body := call(t, "GET", s.url+"/api/memory/threads/th-f/messages?resourceId=u1", "", "")
	if code != 200 || !strings.Contains(string(body), `"model":"google/gemini-2.5-flash"`) {
		t.Errorf("Got(stored messages) = %d %s; want the reply naming its model", code, body)
	}
	code, body = call(t, "POST", s.url+"/api/agents/fallback/stream", "", `{"messages":"Hi again"}`)
	if code != 200 || !strings.Contains(string(body), `"type":"data-keel-fallback"`) ||
		!strings.Contains(string(body), `"model":"google/gemini-2.5-flash"`) {
		t.Errorf("Got(stream) = %d %s; want the fallback event and the model named", code, body)
	}

	before := len(srv.Requests())
	sheet := base64.StdEncoding.EncodeToString(xlsxBytes())
	g = generate(t, s.url, "repair", fmt.Sprintf(`{"messages":[{"role":"user","content":[{"type":"text","text":"Sum the leads"},`+
		`{"type":"file","data":"data:%s;base64,%s","mediaType":"%s","filename":"leads.xlsx"}]}]}`, xlsxType, sheet, xlsxType))
	if g.Response.Model != "google/gemini-2.5-flash" {
		t.Errorf("Got(model that answered the sheet) = %q; want the first model, repaired", g.Response.Model)
	}
	var models []string
	for _, r := range srv.Requests()[before:] {
		models = append(models, r.Model)
	}
	if strings.Join(models, ",") != "gemini-2.5-flash,gemini-2.5-flash" {
		t.Errorf("Got(calls for the sheet) = %q; want the 502 and the repaired retry, both on gemini-2.5-flash", models)
	}
}
