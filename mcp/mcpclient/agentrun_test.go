package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/tool"
)

// A server's tools in a real agent run: a scripted model calls them, and
// the results, the image included, are stored in the thread of a real
// SQLite store, and sent to the model's next call.
func TestServerToolsInAnAgentRun(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cfg := everythingOver(t, transport)
			c := start(t, cfg)
			store, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			model := keeltest.NewModel(
				keeltest.Reply{ToolCalls: []keel.ToolCallPart{
					{ID: "c1", Name: "everything_echo", Input: json.RawMessage(`{"message":"ping"}`)},
					{ID: "c2", Name: "everything_get-tiny-image", Input: json.RawMessage(`{}`)},
				}},
				keeltest.Reply{Text: "The echo said ping, and the logo is tiny."},
			)
			a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: store, ToolSets: []tool.Set{c}, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			res, err := a.Generate(ctx, []keel.Message{keel.UserText("echo ping, then show the logo")},
				agent.WithThread("t1"), agent.WithResource("r1"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "The echo said ping, and the logo is tiny." || len(res.ToolResults) != 2 ||
				string(res.ToolResults[0].Output) != `"Echo: ping"` || res.ToolResults[1].IsError {
				t.Fatalf("Got(run) = %q, %+v; want both tools answered, then the text", res.Text, res.ToolResults)
			}
			// The model was offered the server's tools with their schemas.
			first := model.Requests()[0]
			var echoSchema string
			for _, d := range first.Tools {
				if d.Name == "everything_echo" {
					echoSchema = string(d.InputSchema)
				}
			}
			if !strings.Contains(echoSchema, `"message"`) {
				t.Errorf("Got(echo's schema sent to the model) = %q; want the server's, with message", echoSchema)
			}
			// The second call carried the tool message: both results, the
			// image after the call that made it.
			prompt := model.Prompts()[1]
			sent := prompt[len(prompt)-1]
			if got := partKinds(sent); sent.Role != keel.RoleTool || got != "tool-result tool-result file" {
				t.Errorf("Got(tool message sent) = %s %q; want tool [tool-result tool-result file]", sent.Role, got)
			}

			page, err := store.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			var stored keel.Message
			for _, m := range page.Messages {
				roles = append(roles, string(m.Role))
				if m.Role == keel.RoleTool {
					stored = m
				}
			}
			if strings.Join(roles, " ") != "user assistant tool assistant" {
				t.Fatalf("Got(stored roles) = %v; want user assistant tool assistant", roles)
			}
			if got := partKinds(stored); got != "tool-result tool-result file" {
				t.Fatalf("Got(stored tool message) = %q; want two results and the image", got)
			}
			img := stored.Parts[2].(keel.FilePart)
			if img.MediaType != "image/png" || img.Filename != "everything_get-tiny-image-1.png" || img.SHA256 == "" {
				t.Errorf("Got(stored image) = %s %s %q; want the PNG, named, with its digest", img.MediaType, img.Filename, img.SHA256)
			}
			if cfg, err := png.DecodeConfig(bytes.NewReader(img.Data)); err != nil || cfg.Width != 20 {
				t.Errorf("Got(stored image decoded) = %+v, %v; want the 20x20 logo", cfg, err)
			}
		})
	}
}

func partKinds(m keel.Message) string {
	var out []string
	for _, p := range m.Parts {
		out = append(out, p.PartType())
	}
	return strings.Join(out, " ")
}

// 100 calls at once to one server run at once: they take about as long
// as one, since the server handles calls concurrently, and leave no
// goroutine behind.
func TestConcurrentCalls(t *testing.T) {
	for _, tt := range []struct {
		name  string
		cfg   func(t *testing.T) mcpclient.Config
		tool  string
		input string
		each  time.Duration
	}{
		{"go test server", func(t *testing.T) mcpclient.Config { return testServer(t, nil) },
			"t_sleep", `{"ms":300}`, 300 * time.Millisecond},
		{"server-everything", func(t *testing.T) mcpclient.Config { return everything(t, "e") },
			"e_trigger-long-running-operation", `{"duration":0.3,"steps":1}`, 300 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := start(t, tt.cfg(t))
			exec := find(t, c.Tools(), tt.tool).Execute
			// Warm the connection, then count.
			if _, err := exec(context.Background(), tool.Call{Input: json.RawMessage(tt.input)}); err != nil {
				t.Fatal(err)
			}
			before := settledGoroutines(0)
			const n = 100
			var wg sync.WaitGroup
			errs := make(chan error, n)
			begin := time.Now()
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := exec(context.Background(), tool.Call{Input: json.RawMessage(tt.input)}); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(begin)
			close(errs)
			for err := range errs {
				t.Errorf("Got(a concurrent call) = %v; want it answered", err)
			}
			// Serialised, 100 calls would take 100 times as long.
			if elapsed > 10*tt.each {
				t.Errorf("Got(100 concurrent calls of %s each) = %s; want them to overlap", tt.each, elapsed)
			}
			if after := settledGoroutines(before); after > before {
				t.Errorf("Got(goroutines after the calls) = %d; want %d, as before them", after, before)
			}
			t.Logf("100 concurrent calls of %s each: %s", tt.each, elapsed)
		})
	}
}

// settledGoroutines returns the goroutine count once it is at most want
// or has stopped falling (want 0: once it stops falling), waiting at most
// five seconds: a cancelled call's notice and a closed stream's reader
// end a moment after the call.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if want > 0 && m <= want || want == 0 && m == n {
			return m
		}
		n = m
	}
	return n
}
