package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/workspace"
)

func geminiModel(t *testing.T, opts googletest.Options) (*google.Model, *googletest.Server) {
	t.Helper()
	srv := googletest.NewServer(t, opts)
	m, err := google.New("gemini-2.5-flash", google.Options{APIKey: "test-key", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

func TestGenerateText(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{Text: "Hello from the model."})
	e := newEnv(t, envOptions{model: model})
	status, body := e.do("POST", "/api/agents/support/generate",
		`{"memory":{"thread":"t-1","resource":"user-1"},"messages":"Say hi"}`)
	v := wantStatus(t, "generate", status, body, 200)
	if v["text"] != "Hello from the model." || v["finishReason"] != "stop" || v["runId"] == "" {
		t.Errorf("Got(generate) text %v, finishReason %v, runId %v; want the model's text, stop, a run id", v["text"], v["finishReason"], v["runId"])
	}
	// A run id the client chose is the run's: Mastra's clients send one to
	// find the run again.
	status, body = e.do("POST", "/api/agents/support/generate", `{"messages":"Say hi","runId":"run-of-the-client"}`)
	if w := wantStatus(t, "generate with a runId", status, body, 200); w["runId"] != "run-of-the-client" {
		t.Errorf("Got(runId) = %v; want the client's run-of-the-client", w["runId"])
	}
	usage, _ := v["usage"].(map[string]any)
	if usage["inputTokens"] != float64(googletest.InputTokens) || usage["outputTokens"] != float64(googletest.OutputTokens) || usage["totalTokens"] == nil {
		t.Errorf("Got(usage) = %v; want %d in, %d out and a total", usage, googletest.InputTokens, googletest.OutputTokens)
	}
	resp, _ := v["response"].(map[string]any)
	msgs, _ := resp["messages"].([]any)
	if resp["modelId"] != googletest.ModelVersion || len(msgs) != 1 {
		t.Errorf("Got(response) = %v; want modelId %s and one reply message", resp, googletest.ModelVersion)
	}
	for _, field := range []string{"toolCalls", "toolResults", "steps", "messages"} {
		if _, ok := v[field].([]any); !ok {
			t.Errorf("Got(%s) = %v; want an array", field, v[field])
		}
	}
	stored := storedMessages(t, e.mem, "user-1", "t-1")
	if len(stored) != 2 || stored[0].Text() != "Say hi" || stored[1].Text() != "Hello from the model." {
		t.Fatalf("Got(stored) = %+v; want the question and the answer", stored)
	}
	replyMsgs, _ := v["messages"].([]any)
	if len(replyMsgs) != 1 || replyMsgs[0].(map[string]any)["id"] != stored[1].ID {
		t.Errorf("Got(messages) = %v; want the stored reply %s", replyMsgs, stored[1].ID)
	}
}

func TestGenerateWithoutMemory(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "ok"})})
	status, body := e.do("POST", "/api/agents/support/generate",
		`{"messages":[{"role":"user","content":"hello"},{"role":"assistant","content":[{"type":"text","text":"hi"}]},{"role":"user","content":"again"}]}`)
	v := wantStatus(t, "generate", status, body, 200)
	if v["text"] != "ok" {
		t.Errorf("Got(text) = %v; want ok", v["text"])
	}
}

// A spreadsheet the model server refuses with Gemini's real 400: the
// answer still arrives, and the thread keeps the file byte for byte.
func TestGenerateRefusedXLSXRecovers(t *testing.T) {
	model, gem := geminiModel(t, googletest.Options{Unsupported: []string{xlsx}, Text: "I could not open it."})
	mem, err := sqlitestore.Open(t.TempDir() + "/keel.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	e := newEnv(t, envOptions{model: model, mem: mem})
	file := make([]byte, 3000)
	rand.Read(file)
	dataURL := "data:" + xlsx + ";base64," + base64.StdEncoding.EncodeToString(file)
	req := map[string]any{
		"memory": map[string]any{"thread": map[string]any{"id": "t-x"}, "resource": "user-1"},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "Summarize this"},
			map[string]any{"type": "file", "data": dataURL, "mediaType": xlsx, "filename": "leads.xlsx"},
		}}},
	}
	status, body := e.do("POST", "/api/agents/support/generate", req)
	v := wantStatus(t, "generate", status, body, 200)
	if v["text"] != "I could not open it." {
		t.Errorf("Got(text) = %v; want the model's answer", v["text"])
	}
	recs, _ := v["recoveries"].([]any)
	if len(recs) != 1 || recs[0].(map[string]any)["processor"] != "unsupported-file-handler" {
		t.Errorf("Got(recoveries) = %v; want one of unsupported-file-handler", recs)
	}
	if bytes.Contains(body, []byte(dataURL[len(dataURL)-100:])) {
		t.Errorf("Got(response) holds the file's bytes; want them not echoed")
	}
	reqs := gem.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Got(model calls) = %d; want 2 (refused, then without the file)", len(reqs))
	}
	second := must(reqs[1].Decode())
	if got := second.InlineMediaTypes(); len(got) != 0 {
		t.Errorf("Got(second call's files) = %v; want none", got)
	}

	status, body = e.do("GET", "/api/memory/threads/t-x/messages?agentId=support&resourceId=user-1", nil)
	page := wantStatus(t, "messages", status, body, 200)
	msgs, _ := page["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("Got(messages) = %d; want 2", len(msgs))
	}
	user := msgs[0].(map[string]any)
	content := user["content"].(map[string]any)
	parts := content["parts"].([]any)
	fp := parts[1].(map[string]any)
	if fp["type"] != "file" || fp["data"] != dataURL || fp["mimeType"] != xlsx || fp["filename"] != "leads.xlsx" {
		t.Errorf("Got(stored file part) type %v mimeType %v filename %v, data equal %v; want the file as sent",
			fp["type"], fp["mimeType"], fp["filename"], fp["data"] == dataURL)
	}
	if user["type"] != "text" || content["format"] != float64(2) || content["content"] != "Summarize this" || user["threadId"] != "t-x" || user["resourceId"] != "user-1" {
		t.Errorf("Got(stored message) = %v; want Mastra's format 2 fields", user)
	}
}

func TestGenerateFileForms(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	pngB64 := base64.StdEncoding.EncodeToString(png)
	tests := []struct {
		name string
		part string
		want keel.FilePart
		// data is what the thread's messages show for the file.
		data string
	}{
		{"data URL, kept as bytes", `{"type":"file","data":"data:application/pdf;base64,JVBERg==","mediaType":"application/pdf","filename":"a.pdf"}`,
			keel.FilePart{Data: []byte("%PDF"), MediaType: "application/pdf", Filename: "a.pdf"}, "data:application/pdf;base64,JVBERg=="},
		{"data URL of another type, kept as sent", `{"type":"file","data":"data:application/octet-stream;base64,JVBERg==","mediaType":"application/pdf"}`,
			keel.FilePart{URL: "data:application/octet-stream;base64,JVBERg==", MediaType: "application/pdf"}, "data:application/octet-stream;base64,JVBERg=="},
		{"unpadded data URL, kept as sent", `{"type":"file","data":"data:application/pdf;base64,JVBERg","mediaType":"application/pdf"}`,
			keel.FilePart{URL: "data:application/pdf;base64,JVBERg", MediaType: "application/pdf"}, "data:application/pdf;base64,JVBERg"},
		{"data URL with padding bits set, kept as sent", `{"type":"file","data":"data:application/pdf;base64,JVBERh==","mediaType":"application/pdf"}`,
			keel.FilePart{URL: "data:application/pdf;base64,JVBERh==", MediaType: "application/pdf"}, "data:application/pdf;base64,JVBERh=="},
		{"data URL with a line break, kept as sent", `{"type":"file","data":"data:application/pdf;base64,JVBE\nRg==","mediaType":"application/pdf"}`,
			keel.FilePart{URL: "data:application/pdf;base64,JVBE\nRg==", MediaType: "application/pdf"}, "data:application/pdf;base64,JVBE\nRg=="},
		{"upper-case DATA: scheme, kept as sent", `{"type":"file","data":"DATA:application/pdf;base64,JVBERg==","mediaType":"application/pdf"}`,
			keel.FilePart{URL: "DATA:application/pdf;base64,JVBERg==", MediaType: "application/pdf"}, "DATA:application/pdf;base64,JVBERg=="},
		{"data URL without mediaType", `{"type":"file","data":"data:text/csv;base64,YSxi"}`,
			keel.FilePart{Data: []byte("a,b"), MediaType: "text/csv"}, "data:text/csv;base64,YSxi"},
		{"raw base64, old mimeType", `{"type":"file","data":"JVBERg==","mimeType":"application/pdf"}`,
			keel.FilePart{Data: []byte("%PDF"), MediaType: "application/pdf"}, "data:application/pdf;base64,JVBERg=="},
		{"http URL", `{"type":"file","data":"https://example.com/a.pdf","mediaType":"application/pdf"}`,
			keel.FilePart{URL: "https://example.com/a.pdf", MediaType: "application/pdf"}, "https://example.com/a.pdf"},
		{"image part, type sniffed", fmt.Sprintf(`{"type":"image","image":%q}`, pngB64),
			keel.FilePart{Data: png, MediaType: "image/png"}, "data:image/png;base64," + pngB64},
		{"image data URL", `{"type":"image","image":"data:image/gif;base64,R0lGOA==","mediaType":"image/gif"}`,
			keel.FilePart{Data: []byte("GIF8"), MediaType: "image/gif"}, "data:image/gif;base64,R0lGOA=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
			e := newEnv(t, envOptions{model: model})
			status, body := e.do("POST", "/api/agents/support/generate",
				`{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"text","text":"look"},`+tt.part+`]}]}`)
			wantStatus(t, "generate", status, body, 200)
			stored := storedMessages(t, e.mem, "r", "t")
			got, ok := stored[0].Parts[1].(keel.FilePart)
			if !ok || got.URL != tt.want.URL || !bytes.Equal(got.Data, tt.want.Data) || got.MediaType != tt.want.MediaType || got.Filename != tt.want.Filename {
				t.Errorf("Got(stored file) = %+v; want %+v", stored[0].Parts[1], tt.want)
			}
			status, body = e.do("GET", "/api/memory/threads/t/messages?resourceId=r", nil)
			var page struct {
				Messages []struct {
					Content struct {
						Parts []struct{ Type, Data, MimeType string }
					}
				}
			}
			if err := json.Unmarshal(body, &page); err != nil || status != 200 {
				t.Fatalf("Got(messages) = %d %s", status, body)
			}
			fp := page.Messages[0].Content.Parts[1]
			if fp.Type != "file" || fp.Data != tt.data || fp.MimeType != tt.want.MediaType {
				t.Errorf("Got(listed file) = %+v; want data %q, mimeType %q", fp, tt.data, tt.want.MediaType)
			}
		})
	}
}

func TestGenerateBadRequests(t *testing.T) {
	const ok = `{"memory":{"thread":"t","resource":"r"},"messages":"hi"}`
	tests := []struct {
		name   string
		body   string
		status int
		substr string // in the error or its issues
	}{
		{"malformed JSON", `{"messages":"hi"`, 400, "malformed JSON"},
		{"not an object", `[1,2]`, 400, "JSON object"},
		{"empty body", ``, 400, "empty"},
		{"single message object", `{"memory":{"thread":"t","resource":"r"},"messages":{"role":"user","content":"hi"}}`, 400, "single message object"},
		{"no messages", `{"memory":{"thread":"t","resource":"r"}}`, 400, "messages"},
		{"empty messages", `{"memory":{"thread":"t","resource":"r"},"messages":[]}`, 400, "empty"},
		{"messages a number", `{"messages":42}`, 400, "string or an array"},
		{"bad role", `{"messages":[{"role":"robot","content":"hi"}]}`, 400, "robot"},
		{"content an object", `{"messages":[{"role":"user","content":{"a":1}}]}`, 400, "content"},
		{"unknown part", `{"messages":[{"role":"user","content":[{"type":"video","data":"x"}]}]}`, 400, "video"},
		{"bad base64", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"file","data":"not base64!!","mediaType":"application/pdf"}]}]}`, 400, "base64"},
		{"bad data URL", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"file","data":"data:application/pdf;base64,@@@@","mediaType":"application/pdf"}]}]}`, 400, "data: URL"},
		{"data URL without a comma", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"file","data":"data:text/plain;base64","mediaType":"text/plain"}]}]}`, 400, "comma"},
		{"data URL without a comma, not base64", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"file","data":"data:text/plain","mediaType":"text/plain"}]}]}`, 400, "comma"},
		{"file without type", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"file","data":"JVBERg=="}]}]}`, 400, "mediaType"},
		{"file without data", `{"messages":[{"role":"user","content":[{"type":"file","mediaType":"application/pdf"}]}]}`, 400, "data"},
		{"thread without resource", `{"memory":{"thread":"t"},"messages":"hi"}`, 400, "memory.resource"},
		{"thread id with a slash", `{"memory":{"thread":"a/b","resource":"r"},"messages":"hi"}`, 400, "memory.thread"},
		{"thread id with a space", `{"memory":{"thread":"a b","resource":"r"},"messages":"hi"}`, 400, "memory.thread"},
		{"thread id ..", `{"memory":{"thread":"..","resource":"r"},"messages":"hi"}`, 400, "memory.thread"},
		{"thread id .", `{"memory":{"thread":".","resource":"r"},"messages":"hi"}`, 400, "memory.thread"},
		{"resource ..", `{"memory":{"thread":"t","resource":".."},"messages":"hi"}`, 400, "memory.resource"},
		{"thread id too long", `{"memory":{"thread":"` + strings.Repeat("a", 129) + `","resource":"r"},"messages":"hi"}`, 400, "memory.thread"},
		{"resource with unicode", `{"memory":{"thread":"t","resource":"ré"},"messages":"hi"}`, 400, "memory.resource"},
		{"thread object without id", `{"memory":{"thread":{"title":"x"},"resource":"r"},"messages":"hi"}`, 400, "memory.thread.id"},
		{"thread a number", `{"memory":{"thread":5,"resource":"r"},"messages":"hi"}`, 400, "memory.thread"},
		{"run id with a quote", `{"runId":"a\"b","messages":"hi"}`, 400, "runId"},
		{"resource a number", `{"memory":{"thread":"t","resource":5},"messages":"hi"}`, 400, "resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := keeltest.NewModel(keeltest.Reply{Text: "never"})
			e := newEnv(t, envOptions{model: model})
			status, body := e.do("POST", "/api/agents/support/generate", tt.body)
			wantStatus(t, tt.name, status, body, tt.status)
			if !strings.Contains(string(body), tt.substr) {
				t.Errorf("Got(%s) = %s; want it to mention %q", tt.name, body, tt.substr)
			}
			if model.Calls() != 0 {
				t.Errorf("Got(model calls) = %d; want 0", model.Calls())
			}
			if got := storedMessages(t, e.mem, "r", "t"); len(got) != 0 {
				t.Errorf("Got(stored) = %d messages; want none", len(got))
			}
			// The same server still answers a good request.
			status, body = e.do("POST", "/api/agents/support/generate", ok)
			if status != 200 {
				t.Errorf("Got(good request after) = %d %s; want 200", status, body)
			}
		})
	}
}

func TestGenerateOversizedBody(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := newEnv(t, envOptions{model: model, limit: 4096})
	big := base64.StdEncoding.EncodeToString(make([]byte, 8192))
	body := `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"file","data":"` + big + `","mediaType":"application/pdf"}]}]}`
	for _, route := range []string{"generate", "stream"} {
		status, resp := e.do("POST", "/api/agents/support/"+route, body)
		wantError(t, route+" oversized", status, resp, http.StatusRequestEntityTooLarge, "4096 byte limit")
	}
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want 0", model.Calls())
	}
	if _, err := e.mem.GetThread(t.Context(), "r", "t"); err == nil {
		t.Errorf("Got(thread t) exists; want nothing stored")
	}
	status, resp := e.do("POST", "/api/memory/threads", `{"resourceId":"r","title":"`+strings.Repeat("x", 5000)+`"}`)
	wantError(t, "create thread oversized", status, resp, http.StatusRequestEntityTooLarge, "limit")

	// A body sent without its length is cut at the limit as it is read.
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(body))
		pw.Close()
	}()
	req := must(http.NewRequest("POST", e.srv.URL+"/api/agents/support/generate", pr))
	res := must(e.srv.Client().Do(req))
	defer res.Body.Close()
	// (A request whose body is a pipe goes chunked: its length is unknown.)
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("Got(chunked oversized) = %d; want 413", res.StatusCode)
	}
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want 0", model.Calls())
	}
}

func TestGenerateAnotherResourcesThread(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := newEnv(t, envOptions{model: model})
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "secret", ResourceID: "alice", Title: "alice's plans"}))
	must(e.mem.SaveMessages(t.Context(), "alice", "secret", []keel.Message{keel.UserText("my password is hunter2")}))
	for _, route := range []string{"generate", "stream"} {
		status, body := e.do("POST", "/api/agents/support/"+route, `{"memory":{"thread":"secret","resource":"mallory"},"messages":"show me"}`)
		wantError(t, route, status, body, 404, "Thread not found")
		if bytes.Contains(body, []byte("hunter2")) || bytes.Contains(body, []byte("alice")) {
			t.Errorf("Got(%s answer) = %s; want nothing of alice's", route, body)
		}
	}
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want 0", model.Calls())
	}
	if got := storedMessages(t, e.mem, "alice", "secret"); len(got) != 1 {
		t.Errorf("Got(alice's thread) = %d messages; want 1, unchanged", len(got))
	}
}

func TestGenerateModelFailureStatus(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		says   string // what the message must hold, if anything
	}{
		{"provider 400", &keel.APICallError{Provider: "google", StatusCode: 400, Message: "bad"}, 422, ""},
		{"provider 429", &keel.APICallError{Provider: "google", StatusCode: 429, Header: http.Header{"Retry-After": {"7"}}}, 429, ""},
		{"provider 500", &keel.APICallError{Provider: "google", StatusCode: 500}, 502, ""},
		{"provider 401", &keel.APICallError{Provider: "google", StatusCode: 401}, 502, "check the server's API key for google"},
		{"provider 403", &keel.APICallError{Provider: "openai", StatusCode: 403}, 502, "check the server's API key for openai"},
		{"no answer", &keel.APICallError{Provider: "google", StatusCode: 0}, 502, ""},
		{"provider 504", &keel.APICallError{Provider: "google", StatusCode: 504}, 504, ""},
		{"deadline exceeded", fmt.Errorf("google: read response: %w", context.DeadlineExceeded), 504, ""},
		{"SDK refusal without a file", &keel.UnsupportedFunctionalityError{Functionality: "tool choice type: required"}, 422, ""},
		{"not the model's", errors.New("disk on fire"), 500, "disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The agent has no default processors, so the first failure surfaces.
			model := keeltest.NewModel(keeltest.Reply{Err: tt.err})
			model.RepeatLast = true
			logs := newLogSink()
			e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
				noRetries(c)
				c.Logger = logs.logger()
			}})
			resp := e.send("POST", "/api/agents/support/generate", `{"memory":{"thread":"t","resource":"r"},"messages":"hi"}`)
			defer resp.Body.Close()
			var v map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				t.Fatal(err)
			}
			if msg, _ := v["error"].(string); resp.StatusCode != tt.status || msg == "" || !strings.Contains(msg, tt.says) {
				t.Errorf("Got(status) = %d %v; want %d with an error saying %q", resp.StatusCode, v, tt.status, tt.says)
			}
			if tt.status == 429 && resp.Header.Get("Retry-After") != "7" {
				t.Errorf("Got(Retry-After) = %q; want 7", resp.Header.Get("Retry-After"))
			}
			// The server's own failures (5xx) are logged before the answer
			// is written; what the caller or the model got wrong is not.
			if logged := logs.has("server: run failed"); logged != (tt.status >= 500) {
				t.Errorf("Got(logged \"server: run failed\") = %v; want %v for a %d", logged, tt.status >= 500, tt.status)
			}
			if got := storedMessages(t, e.mem, "r", "t"); len(got) != 1 || got[0].Text() != "hi" {
				t.Errorf("Got(stored) = %+v; want the user's message kept", got)
			}
		})
	}
}

// A 1 MiB PDF: the answer never carries the file back.
func TestGeneratePDFResponseIsSmall(t *testing.T) {
	model, gem := geminiModel(t, googletest.Options{})
	e := newEnv(t, envOptions{model: model})
	pdf := make([]byte, 1<<20)
	rand.Read(pdf)
	copy(pdf, "%PDF-1.7\n")
	req := map[string]any{
		"memory": map[string]any{"thread": "t-pdf", "resource": "u"},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "Summarize"},
			map[string]any{"type": "file", "data": "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(pdf), "mediaType": "application/pdf", "filename": "report.pdf"},
		}}},
	}
	status, body := e.do("POST", "/api/agents/support/generate", req)
	wantStatus(t, "generate pdf", status, body, 200)
	if len(body) > 16<<10 {
		t.Errorf("Got(response size) = %d; want at most 16 KiB", len(body))
	}
	files := must(must(gem.Requests()[0].Decode()).Files())
	if len(files) != 1 || !bytes.Equal(files[0].Data, pdf) {
		t.Errorf("Got(file sent to the model) = %d files; want the PDF, byte for byte", len(files))
	}
	stored := storedMessages(t, e.mem, "u", "t-pdf")
	data := must(stored[0].Parts[1].(keel.FilePart).InlineData())
	if !bytes.Equal(data, pdf) {
		t.Errorf("Got(stored PDF) differs; want it byte for byte")
	}
}

// A file over the upload processor's size limit is the caller's mistake:
// 413, with the processor's code, and the model is never called.
func TestGenerateFileOverUploadLimit(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Workspace = workspace.New(keeltest.NewSandbox("sb"))
		up := must(processor.NewFileUpload(processor.FileUploadOptions{Workspace: cfg.Workspace,
			MaxSize: func(processor.FileInfo) int64 { return 10 }}))
		cfg.InputProcessors = []processor.Processor{up}
		c.Agents[0] = must(agentNew(cfg))
	}})
	data := base64.StdEncoding.EncodeToString([]byte("a,b\n1,2\n3,4\n5,6\n"))
	status, body := e.do("POST", "/api/agents/support/generate", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[`+
		`{"type":"text","text":"read"},{"type":"file","data":"`+data+`","mediaType":"text/csv","filename":"big.csv"}]}]}`)
	v := wantError(t, "file over the upload limit", status, body, http.StatusRequestEntityTooLarge, "big.csv")
	if v["code"] != processor.CodeFileTooLarge {
		t.Errorf("Got(code) = %v; want %s", v["code"], processor.CodeFileTooLarge)
	}
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want 0", model.Calls())
	}
}

// An agent with no usable model (no API key, no KEEL_MODEL) is answered
// 503 with the variable to set, on both run routes, and nothing is
// stored, since the client tries a 503 again. A model that only says so
// once called gets the same status.
func TestNoModelConfigured(t *testing.T) {
	e := newEnv(t, envOptions{model: &config.UnavailableModel{Err: config.ErrNoModel}})
	for _, route := range []string{"generate", "stream"} {
		status, body := e.do("POST", "/api/agents/support/"+route, `{"memory":{"thread":"t","resource":"r"},"messages":"hi"}`)
		wantError(t, route+" without a model", status, body, http.StatusServiceUnavailable, "KEEL_MODEL")
	}
	if got := storedMessages(t, e.mem, "r", "t"); len(got) != 0 {
		t.Errorf("Got(stored) = %d messages; want none", len(got))
	}
	hidden := newEnv(t, envOptions{model: struct{ keel.Model }{&config.UnavailableModel{Model: "openai/gpt-4o",
		Err: fmt.Errorf("%w: set OPENAI_API_KEY", config.ErrModelUnavailable)}}, config: noRetries})
	status, body := hidden.do("POST", "/api/agents/support/generate", `{"messages":"hi"}`)
	wantError(t, "generate with a model that fails as unavailable", status, body, http.StatusServiceUnavailable, "OPENAI_API_KEY")
}

// The agent routes tell a model that cannot answer before anyone sends
// a message: keel.models[].unavailable holds the error its calls answer
// with, which says what to set; a usable model has none. Every model of
// an agent's list is listed, in order.
func TestAgentModelUnavailable(t *testing.T) {
	missing := &config.UnavailableModel{Model: "openai/gpt-4o", Err: fmt.Errorf("%w: set OPENAI_API_KEY", config.ErrModelUnavailable)}
	tests := []struct {
		name   string
		models []agent.ModelEntry
		want   string
	}{
		{"no model", []agent.ModelEntry{{Model: &config.UnavailableModel{Err: config.ErrNoModel}}},
			"none/unconfigured: " + config.ErrNoModel.Error()},
		{"no key", []agent.ModelEntry{{Model: missing}}, "openai/gpt-4o: config: model unavailable: set OPENAI_API_KEY"},
		{"usable, then no key", []agent.ModelEntry{{Model: keeltest.NewModel()}, {Model: missing}},
			"keeltest/scripted, openai/gpt-4o: config: model unavailable: set OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := agent.New(agent.Config{ID: "support", Models: tt.models})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Agents = []*agent.Agent{a} }})
			status, body := e.do("GET", "/api/agents/support", nil)
			wantStatus(t, "agent", status, body, http.StatusOK)
			var v struct {
				Keel struct {
					Models []struct{ Provider, ModelID, Unavailable string }
				}
			}
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range v.Keel.Models {
				s := m.Provider + "/" + m.ModelID
				if m.Unavailable != "" {
					s += ": " + m.Unavailable
				}
				got = append(got, s)
			}
			if strings.Join(got, ", ") != tt.want {
				t.Errorf("Got(keel.models) = %q; want %q", strings.Join(got, ", "), tt.want)
			}
		})
	}
}

// Each file a recovery concerns is one log line: the thread, the file, the
// processor, what the model got instead and the cause.
func TestRecoveryIsLogged(t *testing.T) {
	for _, route := range []string{"generate", "stream"} {
		t.Run(route, func(t *testing.T) {
			model, _ := geminiModel(t, googletest.Options{Unsupported: []string{xlsx}, Text: "Fine."})
			logs := newLogSink()
			e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.Logger = logs.logger() }})
			data := base64.StdEncoding.EncodeToString([]byte("PK\x03\x04fake"))
			status, body := e.do("POST", "/api/agents/support/"+route, `{"memory":{"thread":"t-log","resource":"r"},"messages":[{"role":"user","content":[`+
				`{"type":"text","text":"read"},{"type":"file","data":"`+data+`","mediaType":"`+xlsx+`","filename":"leads.xlsx"}]}]}`)
			if status != 200 {
				t.Fatalf("Got(%s) = %d %s; want 200", route, status, body)
			}
			line := logs.wait(t, "server: recovery", nil)
			if line["thread"].String() != "t-log" || line["resource"].String() != "r" || line["agent"].String() != "support" ||
				line["processor"].String() != processor.UnsupportedFileHandlerID || line["action"].String() != "placeholder" ||
				line["run"].String() == "" || line["file"].String() != "leads.xlsx" || line["mediaType"].String() != xlsx ||
				line["outcome"].String() != "placeholder" || intAttr(line, "size") != 8 || len(line["sha256"].String()) != 64 {
				t.Errorf("Got(recovery log) = %v; want thread t-log, the handler's placeholder for leads.xlsx", line)
			}
			if line["cause"].String() != processor.CauseAPIError || !strings.HasPrefix(line["why"].String(), "google answered 400 ") ||
				!strings.Contains(line["why"].String(), "Unsupported MIME type") || line["got"].String() != "replaced by a placeholder" {
				t.Errorf("Got(recovery log cause) = %v, why %v, got %v; want google's 400 and its message, the placeholder said",
					line["cause"], line["why"], line["got"])
			}
		})
	}
}
