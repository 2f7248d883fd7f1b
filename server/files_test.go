package server_test

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// hostileName is a file name that is markup: it must stay a name.
const hostileName = `<img src=x onerror=alert(1)>.xlsx`

// sandboxEnv is a server whose agent "support" has sandboxes under root,
// shared as mode says, and whose model answers 502 to an xlsx, as Gemini
// does.
func sandboxEnv(t *testing.T, mode localsandbox.Mode, change func(*server.Config)) (*env, string) {
	t.Helper()
	model, _ := geminiModel(t, googletest.Options{Internal: []string{xlsx}, Text: "Read it."})
	root := t.TempDir()
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Workspace = workspace.NewResolved(localsandbox.NewResolver(root, mode, localsandbox.Options{Logger: slog.New(slog.DiscardHandler)}))
		c.Agents[0] = must(agent.New(cfg))
		if change != nil {
			change(c)
		}
	}})
	return e, root
}

// sendFile runs one turn holding data as an xlsx named name in thread t
// of resource r.
func (e *env) sendFile(thread, name string, data []byte) {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{
		"memory": map[string]string{"thread": thread, "resource": "r"},
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]string{"type": "text", "text": "Read these"},
			map[string]string{"type": "file", "data": "data:" + xlsx + ";base64," + base64.StdEncoding.EncodeToString(data), "mediaType": xlsx, "filename": name},
		}}},
	})
	status, out := e.do("POST", "/api/agents/support/generate", body)
	wantStatus(e.t, "generate with a file", status, out, 200)
}

type storedPage struct {
	Messages []struct {
		ID      string `json:"id"`
		Role    string `json:"role"`
		Content struct {
			Parts []struct {
				Type     string `json:"type"`
				Data     string `json:"data"`
				MimeType string `json:"mimeType"`
				Filename string `json:"filename"`
				Size     *int64 `json:"size"`
				SHA256   string `json:"sha256"`
			} `json:"parts"`
			Metadata map[string]json.RawMessage `json:"metadata"`
		} `json:"content"`
	} `json:"messages"`
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The messages route tells each file's size and SHA-256, leaves the bytes
// out on request, and returns the turn's recoveries; the download route
// gives the stored bytes back as an attachment that cannot run.
func TestStoredFileDownload(t *testing.T) {
	e, _ := sandboxEnv(t, localsandbox.PerResource, nil)
	data := []byte("PK\x03\x04 leads\x00\xff" + strings.Repeat("x", 3000))
	e.sendFile("t-1", hostileName, data)

	for _, q := range []string{"", "&fileData=false"} {
		status, body := e.do("GET", "/api/memory/threads/t-1/messages?resourceId=r"+q, nil)
		wantStatus(t, "messages"+q, status, body, 200)
		var page storedPage
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Messages) != 2 {
			t.Fatalf("Got(messages%s) = %d; want 2", q, len(page.Messages))
		}
		f := page.Messages[0].Content.Parts[1]
		wantData := "data:" + xlsx + ";base64," + base64.StdEncoding.EncodeToString(data)
		if q != "" {
			wantData = ""
		}
		if f.Type != "file" || f.Filename != hostileName || f.Size == nil || *f.Size != int64(len(data)) || f.SHA256 != digestOf(data) || f.Data != wantData {
			t.Errorf("Got(file part%s) = %+v; want %s, %d bytes, sha256 %s, data %.20q", q, f, hostileName, len(data), digestOf(data), wantData)
		}
		var recs []struct {
			Action string
			Files  []struct{ Name, Path, SHA256 string }
			Cause  struct{ Status int }
		}
		if err := json.Unmarshal(page.Messages[1].Content.Metadata[agent.MetadataRecoveries], &recs); err != nil {
			t.Fatalf("Got(reply metadata) = %s: %v; want the stored recoveries", page.Messages[1].Content.Metadata, err)
		}
		if len(recs) != 1 || recs[0].Action != "uploaded" || recs[0].Files[0].Name != hostileName ||
			!strings.HasSuffix(recs[0].Files[0].Path, "/uploads/t-1/"+digestOf(data)+".xlsx") || recs[0].Cause.Status != 502 {
			t.Errorf("Got(stored recoveries%s) = %+v; want the upload of the file after the 502", q, recs)
		}
	}

	_, body := e.do("GET", "/api/memory/threads/t-1/messages?resourceId=r&fileData=false", nil)
	var page storedPage
	_ = json.Unmarshal(body, &page)
	mid := page.Messages[0].ID
	resp := e.send("GET", "/api/memory/threads/t-1/messages/"+mid+"/files/0?resourceId=r", nil)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != string(data) {
		t.Fatalf("Got(download) = %d, %d bytes; want 200 and the %d bytes sent", resp.StatusCode, len(got), len(data))
	}
	h := resp.Header
	if h.Get("Content-Type") != xlsx || h.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") || !strings.Contains(h.Get("Content-Disposition"), `"`+hostileName+`"`) ||
		!strings.Contains(h.Get("Content-Security-Policy"), "sandbox") || h.Get("ETag") != `"`+digestOf(data)+`"` {
		t.Errorf("Got(download headers) = %v; want the type, an attachment named %s, nosniff, a sandbox policy, the digest as ETag", h, hostileName)
	}
	resp = e.send("GET", "/api/memory/threads/t-1/messages/"+mid+"/files/0?resourceId=r", nil, "If-None-Match", h.Get("ETag"))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("Got(download with its ETag) = %d; want 304", resp.StatusCode)
	}

	errs := []struct {
		name, path string
		status     int
		substr     string
	}{
		{"no such file", "/api/memory/threads/t-1/messages/" + mid + "/files/1?resourceId=r", 404, "has no file 1"},
		{"no such message", "/api/memory/threads/t-1/messages/nope/files/0?resourceId=r", 404, "has no file 0"},
		{"bad index", "/api/memory/threads/t-1/messages/" + mid + "/files/x?resourceId=r", 400, "non-negative integer"},
		{"another resource", "/api/memory/threads/t-1/messages/" + mid + "/files/0?resourceId=someone-else", 404, "Thread not found"},
		{"bad id", "/api/memory/threads/t-1/messages/a%20b/files/0?resourceId=r", 400, "invalid id"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			status, body := e.do("GET", c.path, nil)
			wantError(t, c.name, status, body, c.status, c.substr)
		})
	}
}

// A file name of 100,000 characters is cut to 255 bytes, at a
// character's edge and with its extension (up to 32 bytes of it), before
// it is stored: the download's Content-Disposition stays a line any
// client takes.
func TestLongFilenameIsCut(t *testing.T) {
	ext32 := "." + strings.Repeat("x", 31)
	ext33 := "." + strings.Repeat("y", 32)
	tests := []struct {
		label, name string
		ok          func(string) bool
		want        string
	}{
		{"100,000 bytes", strings.Repeat("é", 50_000) + ".csv",
			func(s string) bool { return len(s) >= 250 && strings.HasSuffix(s, "é.csv") }, "at most 255 bytes of UTF-8 ending in é.csv"},
		{"a 32-byte extension", strings.Repeat("a", 300) + ext32,
			func(s string) bool { return len(s) == 255 && strings.HasSuffix(s, "a"+ext32) }, "255 bytes ending in the extension"},
		{"a 33-byte extension", strings.Repeat("a", 300) + ext33,
			func(s string) bool { return len(s) == 255 && !strings.Contains(s, ".") }, "the name's first 255 bytes, the extension too long to keep"},
	}
	for i, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "ok"})})
			thread := fmt.Sprintf("t-%d", i)
			body, _ := json.Marshal(map[string]any{
				"memory": map[string]string{"thread": thread, "resource": "r"},
				"messages": []any{map[string]any{"role": "user", "content": []any{
					map[string]string{"type": "file", "data": "data:text/csv;base64," + base64.StdEncoding.EncodeToString([]byte("a,b\n")),
						"mediaType": "text/csv", "filename": tt.name},
				}}},
			})
			status, out := e.do("POST", "/api/agents/support/generate", body)
			wantStatus(t, "generate", status, out, 200)
			_, out = e.do("GET", "/api/memory/threads/"+thread+"/messages?resourceId=r&fileData=false", nil)
			var page storedPage
			if err := json.Unmarshal(out, &page); err != nil || len(page.Messages) == 0 {
				t.Fatalf("Got(messages) = %s; want the turn", out)
			}
			got := page.Messages[0].Content.Parts[0].Filename
			if len(got) > 255 || !utf8.ValidString(got) || !tt.ok(got) {
				t.Errorf("Got(stored name) = %d bytes %q; want %s", len(got), got, tt.want)
			}
			resp := e.send("GET", "/api/memory/threads/"+thread+"/messages/"+page.Messages[0].ID+"/files/0?resourceId=r", nil)
			resp.Body.Close()
			if cd := resp.Header.Get("Content-Disposition"); resp.StatusCode != 200 || len(cd) > 2048 {
				t.Errorf("Got(download) = %d, Content-Disposition of %d bytes; want 200 and a short line", resp.StatusCode, len(cd))
			}
		})
	}
}

func TestStoredFileDownloadNeedsToken(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{})
	e := newEnv(t, envOptions{model: model, token: "secret"})
	e.token = ""
	status, body := e.do("GET", "/api/memory/threads/t/messages/m/files/0", nil)
	wantError(t, "download without token", status, body, http.StatusUnauthorized, "token")
}

// The sandbox routes list the caller's sandbox, give a file's bytes and
// delete it; they never leave the sandbox or show one that other users
// share.
func TestSandboxFiles(t *testing.T) {
	e, root := sandboxEnv(t, localsandbox.PerResource, nil)
	data := []byte("PK\x03\x04 sandbox bytes")
	e.sendFile("t-1", "leads.xlsx", data)
	want := "uploads/t-1/" + digestOf(data) + ".xlsx"

	status, body := e.do("GET", "/api/agents/support/sandbox/files?resourceId=r", nil)
	v := wantStatus(t, "list", status, body, 200)
	var listing struct {
		Mode, WorkDir string
		Files         []struct {
			Path       string
			Size       int64
			ModifiedAt string
		}
	}
	_ = json.Unmarshal(body, &listing)
	if listing.Mode != "per-resource" || listing.WorkDir != "/home/user" || len(listing.Files) != 1 ||
		listing.Files[0].Path != want || listing.Files[0].Size != int64(len(data)) || listing.Files[0].ModifiedAt == "" {
		t.Fatalf("Got(listing) = %v; want per-resource, /home/user, %s of %d bytes", v, want, len(data))
	}
	resp := e.send("GET", "/api/agents/support/sandbox/files/"+want+"?resourceId=r", nil)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != string(data) || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("Got(download) = %d %q %v; want the file's bytes as an attachment", resp.StatusCode, got, resp.Header)
	}
	// Another resource has a sandbox of its own: empty.
	_, body = e.do("GET", "/api/agents/support/sandbox/files?resourceId=other", nil)
	if !strings.Contains(string(body), `"files":[]`) {
		t.Errorf("Got(another resource's listing) = %s; want no files", body)
	}

	errs := []struct {
		name, method, path string
		status             int
		substr             string
	}{
		{"escape", "GET", "/api/agents/support/sandbox/files/uploads/..%2F..%2F..%2Fetc%2Fpasswd?resourceId=r", 400, "leaves the sandbox"},
		{"missing", "GET", "/api/agents/support/sandbox/files/nope.txt?resourceId=r", 404, "no such file"},
		{"directory", "DELETE", "/api/agents/support/sandbox/files/uploads?resourceId=r", 400, "is a directory"},
		{"no resource", "GET", "/api/agents/support/sandbox/files", 400, "resourceId is required"},
		{"thread of another resource", "GET", "/api/agents/support/sandbox/files?resourceId=other&threadId=t-1", 404, "Thread not found"},
		{"unknown agent", "GET", "/api/agents/nobody/sandbox/files?resourceId=r", 404, "not found"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			status, body := e.do(c.method, c.path, nil)
			wantError(t, c.name, status, body, c.status, c.substr)
		})
	}

	status, body = e.do("DELETE", "/api/agents/support/sandbox/files/"+want+"?resourceId=r", nil)
	wantStatus(t, "delete", status, body, 200)
	if m, _ := filepath.Glob(filepath.Join(root, "*", want)); len(m) != 0 {
		t.Errorf("Got(files after delete) = %v; want none", m)
	}
	status, body = e.do("DELETE", "/api/agents/support/sandbox/files/"+want+"?resourceId=r", nil)
	wantError(t, "delete again", status, body, 404, "no such file")
}

// oneUser accepts every token as the user r.
type oneUser struct{}

func (oneUser) Authenticate(context.Context, string) (string, error) { return "r", nil }

func TestSandboxFilesByMode(t *testing.T) {
	perUser := func(c *server.Config) { c.Users = oneUser{} }
	cases := []struct {
		name   string
		mode   localsandbox.Mode
		change func(*server.Config)
		query  string
		status int
		substr string
	}{
		{"per-thread without a thread", localsandbox.PerThread, nil, "?resourceId=r", 400, "threadId"},
		{"per-thread with a thread", localsandbox.PerThread, nil, "?resourceId=r&threadId=t-1", 200, "per-thread"},
		{"shared, trusted caller", localsandbox.Shared, nil, "?resourceId=r", 200, "shared"},
		{"shared, per-user caller", localsandbox.Shared, perUser, "", 403, "other users' files"},
		{"per-resource, per-user caller", localsandbox.PerResource, perUser, "", 200, "per-resource"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _ := sandboxEnv(t, c.mode, c.change)
			if c.change != nil {
				e.token = "a-user-token"
			}
			e.sendFile("t-1", "leads.xlsx", []byte("PK"))
			status, body := e.do("GET", "/api/agents/support/sandbox/files"+c.query, nil)
			if status != c.status || !strings.Contains(string(body), c.substr) {
				t.Errorf("Got(list) = %d %s; want %d mentioning %q", status, body, c.status, c.substr)
			}
		})
	}
	model, _ := geminiModel(t, googletest.Options{})
	e := newEnv(t, envOptions{model: model})
	status, body := e.do("GET", "/api/agents/support/sandbox/files?resourceId=r", nil)
	wantError(t, "agent without a sandbox", status, body, 404, "has no sandbox")
}

// The agent routes add keel's view of the agent under "keel": models,
// tools, sandbox sharing and processors in the order their hooks run.
func TestAgentKeelDetails(t *testing.T) {
	e, _ := sandboxEnv(t, localsandbox.PerThread, nil)
	status, body := e.do("GET", "/api/agents/support", nil)
	wantStatus(t, "agent", status, body, 200)
	var a struct {
		Keel struct {
			Models []struct {
				Provider, ModelID string
			}
			Tools      []string
			Sandbox    string
			Memory     bool
			Processors []struct {
				ID    string
				Hooks []string
			}
		}
	}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatal(err)
	}
	k := a.Keel
	var ids []string
	for _, p := range k.Processors {
		ids = append(ids, p.ID+"("+strings.Join(p.Hooks, ",")+")")
	}
	want := "link-download(llm-request) prefill-error-handler(api-error) unsupported-file-handler(llm-request,api-error) stream-error-retry-processor(api-error)"
	if len(k.Models) != 1 || k.Models[0].Provider != "google" || k.Models[0].ModelID != "gemini-2.5-flash" ||
		k.Sandbox != "per-thread" || !k.Memory || k.Tools == nil || strings.Join(ids, " ") != want {
		t.Errorf("Got(keel details) = %+v; want google/gemini-2.5-flash, per-thread, memory, processors %s", k, want)
	}
}

// A thread's messages are gzipped for a client that takes gzip; a
// client that does not gets them plain.
func TestMessagesAreCompressed(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{})
	e := newEnv(t, envOptions{model: model})
	msgs := make([]keel.Message, 40)
	for i := range msgs {
		msgs[i] = keel.UserText(strings.Repeat("a question about the leads sheet ", 4))
	}
	if _, err := e.mem.CreateThread(context.Background(), memory.Thread{ID: "t-z", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mem.SaveMessages(context.Background(), "r", "t-z", msgs); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ accept, encoding string }{{"gzip", "gzip"}, {"identity", ""}} {
		resp := e.send("GET", "/api/memory/threads/t-z/messages?resourceId=r&fileData=false", nil, "Accept-Encoding", c.accept)
		body := io.Reader(resp.Body)
		if resp.Header.Get("Content-Encoding") != c.encoding {
			t.Errorf("Got(Content-Encoding for %s) = %q; want %q", c.accept, resp.Header.Get("Content-Encoding"), c.encoding)
		}
		if c.encoding == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		var page struct{ Messages []any }
		err := json.NewDecoder(body).Decode(&page)
		resp.Body.Close()
		if err != nil || len(page.Messages) != 40 {
			t.Errorf("Got(messages for %s) = %d, %v; want 40", c.accept, len(page.Messages), err)
		}
	}
}

// Threads carry their message count, so that a list of threads needs no
// call per thread.
func TestThreadMessageCount(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{})
	e := newEnv(t, envOptions{model: model})
	ctx := context.Background()
	if _, err := e.mem.CreateThread(ctx, memory.Thread{ID: "t-c", ResourceID: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mem.SaveMessages(ctx, "r", "t-c", []keel.Message{keel.UserText("a"), keel.UserText("b"), keel.UserText("c")}); err != nil {
		t.Fatal(err)
	}
	_, body := e.do("GET", "/api/memory/threads?resourceId=r", nil)
	var list struct{ Threads []struct{ MessageCount int } }
	if err := json.Unmarshal(body, &list); err != nil || len(list.Threads) != 1 || list.Threads[0].MessageCount != 3 {
		t.Errorf("Got(thread list) = %s; want one thread of 3 messages", body)
	}
	_, body = e.do("GET", "/api/memory/threads/t-c?resourceId=r", nil)
	var th struct{ MessageCount int }
	if err := json.Unmarshal(body, &th); err != nil || th.MessageCount != 3 {
		t.Errorf("Got(thread) = %s; want messageCount 3", body)
	}
}

// A stored file's text, as the agent's converters give it to a model that
// refused the file.
func TestStoredFileText(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{})
	withConverters := func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Files.Converters = convert.Default()
		c.Agents[0] = must(agent.New(cfg))
	}
	e := newEnv(t, envOptions{model: model, config: withConverters})
	plain := newEnv(t, envOptions{model: model})
	book := officetest.Workbook(t, "Leads", [][]any{{"name", "city"}, {"Ada", "Berlin"}, {"<b>Bob</b>", "Paris"}})
	ctx := context.Background()
	for _, env := range []*env{e, plain} {
		if _, err := env.mem.CreateThread(ctx, memory.Thread{ID: "t-x", ResourceID: "r"}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.mem.SaveMessages(ctx, "r", "t-x", []keel.Message{{ID: "m-1", Role: keel.RoleUser, Parts: []keel.Part{
			keel.FilePart{Data: book, MediaType: xlsx, Filename: "leads.xlsx"},
			keel.FilePart{Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01"), MediaType: xlsx, Filename: "broken.xlsx"},
		}}}); err != nil {
			t.Fatal(err)
		}
	}
	status, body := e.do("GET", "/api/memory/threads/t-x/messages/m-1/files/0/text?agentId=support&resourceId=r", nil)
	var got struct{ Kind, As, Description, Text string }
	if err := json.Unmarshal(body, &got); status != 200 || err != nil || got.Kind != "xlsx" || got.As != "CSV" ||
		!strings.Contains(got.Description, `sheet "Leads"`) || !strings.Contains(got.Text, "Ada,Berlin") || !strings.Contains(got.Text, "<b>Bob</b>,Paris") {
		t.Fatalf("Got(file text) = %d %s; want the workbook as CSV", status, body)
	}
	errs := []struct {
		name   string
		e      *env
		path   string
		status int
		substr string
	}{
		{"no agent", e, "/api/memory/threads/t-x/messages/m-1/files/0/text?resourceId=r", 400, "agentId is required"},
		{"unknown agent", e, "/api/memory/threads/t-x/messages/m-1/files/0/text?agentId=nobody&resourceId=r", 404, "not found"},
		{"not a workbook", e, "/api/memory/threads/t-x/messages/m-1/files/1/text?agentId=support&resourceId=r", 422, "cannot be converted"},
		{"no converters", plain, "/api/memory/threads/t-x/messages/m-1/files/0/text?agentId=support&resourceId=r", 404, "converts no files"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			status, body := c.e.do("GET", c.path, nil)
			wantError(t, c.name, status, body, c.status, c.substr)
		})
	}
}
