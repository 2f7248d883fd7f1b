package googletest_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

const xlsx = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

func post(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-Goog-Api-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func withInline(mediaType string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"read"},{"inlineData":{"mimeType":"` + mediaType +
		`","data":"` + base64.StdEncoding.EncodeToString([]byte("PK")) + `"}}]}]}`
}

func TestServer(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{
		Text:        "two words",
		Unsupported: []string{xlsx},
		Internal:    []string{"application/msword"},
	})
	gen := srv.URL() + "/v1beta/models/gemini-2.5-flash:generateContent"
	stream := srv.URL() + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	tests := []struct {
		name, url, key, body string
		status               int
		want                 string
	}{
		{"text", gen, "k", withInline("application/pdf"), 200, googletest.TextBody("two words")},
		{"stream", stream, "k", withInline("image/png"), 200, googletest.StreamTextBody("two words")},
		{"unsupported type", gen, "k", withInline(xlsx), 400, googletest.UnsupportedMIMEBody(xlsx)},
		{"unsupported type, stream", stream, "k", withInline(strings.ToUpper(xlsx)), 400, googletest.UnsupportedMIMEBody(xlsx)},
		{"internal error", gen, "k", withInline("application/msword"), 502, googletest.InternalBody(502)},
		{"no key", gen, "", withInline("application/pdf"), 403, ""},
		{"unknown method", srv.URL() + "/v1beta/models/gemini-2.5-flash:countTokens", "k", "{}", 404, ""},
		{"bad JSON", gen, "k", "{", 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, tt.url, tt.key, tt.body)
			if status != tt.status {
				t.Errorf("Got(status) = %d; want %d", status, tt.status)
			}
			if tt.want != "" && body != tt.want {
				t.Errorf("Got(body) = %s; want %s", body, tt.want)
			}
		})
	}
	reqs := srv.Requests()
	if len(reqs) != len(tests) {
		t.Fatalf("Got(requests) = %d; want %d", len(reqs), len(tests))
	}
	if reqs[1].Model != "gemini-2.5-flash" || !reqs[1].Stream || reqs[0].Stream {
		t.Errorf("Got(model, stream) = %q %v, %v; want gemini-2.5-flash, true, false", reqs[1].Model, reqs[1].Stream, reqs[0].Stream)
	}
	b, err := reqs[0].Decode()
	if err != nil {
		t.Fatal(err)
	}
	if got := b.InlineMediaTypes(); len(got) != 1 || got[0] != "application/pdf" {
		t.Errorf("Got(InlineMediaTypes) = %q; want [application/pdf]", got)
	}
}

func TestServerRespond(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{
		Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
			if n == 0 {
				return providertest.Reply{Body: googletest.ToolCallBody("", "lookup", `{"q":"x"}`)}, true
			}
			return providertest.Reply{}, false
		},
	})
	url := srv.URL() + "/v1beta/models/m:generateContent"
	_, first := post(t, url, "k", `{"contents":[]}`)
	_, second := post(t, url, "k", `{"contents":[]}`)
	if !strings.Contains(first, `"functionCall":{"args":{"q":"x"},"name":"lookup"}`) {
		t.Errorf("Got(first answer) = %s; want the scripted function call without an id", first)
	}
	if second != googletest.TextBody(googletest.DefaultText) {
		t.Errorf("Got(second answer) = %s; want the default text", second)
	}
}

func TestStreamBodies(t *testing.T) {
	tests := []struct {
		name, body string
		texts      []string
	}{
		{"text", googletest.StreamTextBody("Hello from keel"), []string{"Hello ", "from ", "keel"}},
		{"one word", googletest.StreamTextBody("Hi"), []string{"Hi"}},
		{"tool call", googletest.StreamToolCallBody("id", "f", `{}`), []string{"Let me check."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var texts []string
			events := strings.Split(strings.TrimSuffix(tt.body, "\n\n"), "\n\n")
			for _, ev := range events {
				data, ok := strings.CutPrefix(ev, "data: ")
				if !ok {
					t.Fatalf("Got(event) = %q; want a data: line", ev)
				}
				var chunk struct {
					Candidates []struct {
						Content struct {
							Parts []struct{ Text string }
						}
						FinishReason string
					}
				}
				if err := json.Unmarshal([]byte(data), &chunk); err != nil {
					t.Fatal(err)
				}
				if p := chunk.Candidates[0].Content.Parts; p[0].Text != "" {
					texts = append(texts, p[0].Text)
				}
			}
			if strings.Join(texts, "|") != strings.Join(tt.texts, "|") {
				t.Errorf("Got(texts) = %q; want %q", texts, tt.texts)
			}
			if !strings.Contains(events[len(events)-1], `"finishReason":"STOP"`) {
				t.Errorf("Got(last event) = %s; want it to finish with STOP", events[len(events)-1])
			}
		})
	}
}
