package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/tool"
)

// describeParts names each part of m: "result:NAME", "file:TYPE:NAME",
// "text", "call:NAME".
func describeParts(m keel.Message) string {
	var out []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case keel.ToolResultPart:
			out = append(out, "result:"+p.Name)
		case keel.FilePart:
			out = append(out, "file:"+p.MediaType+":"+p.Filename)
		case keel.ToolCallPart:
			out = append(out, "call:"+p.Name)
		default:
			out = append(out, p.PartType())
		}
	}
	return strings.Join(out, " ")
}

var (
	pngBytes = []byte("\x89PNG\r\n\x1a\n fake image")
	wavBytes = []byte("RIFF\x00\x00\x00\x00WAVE fake sound")
)

// snapshotTool returns a picture and a sound with its result, as an MCP
// tool does; plainTool returns text only.
func snapshotTool(asPointer bool) tool.Tool {
	return tool.Tool{Name: "snapshot", Execute: func(ctx context.Context, c tool.Call) (any, error) {
		r := tool.Result{Output: "two files", Files: []keel.FilePart{
			{Data: pngBytes, MediaType: "image/png", Filename: "shot.png"},
			{Data: wavBytes, MediaType: "audio/wav", Filename: "sound.wav"},
		}}
		if asPointer {
			return &r, nil
		}
		return r, nil
	}}
}

var plainTool = tool.Tool{Name: "plain", Execute: func(ctx context.Context, c tool.Call) (any, error) {
	return tool.Result{Output: json.RawMessage(`{"ok":true}`)}, nil
}}

func TestToolResultFilesFollowTheirResult(t *testing.T) {
	for _, pointer := range []bool{false, true} {
		t.Run(fmt.Sprintf("pointer=%v", pointer), func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				model := keeltest.NewModel(
					keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "snapshot"}, {ID: "c2", Name: "plain"}}},
					keelReply{Text: "I see a picture."},
				)
				store, err := sqlitestore.Open(filepath.Join(t.TempDir(), "k.db"))
				if err != nil {
					t.Fatal(err)
				}
				defer store.Close()
				a := newAgent(t, agent.Config{Model: model, Memory: store, Tools: []tool.Tool{snapshotTool(pointer), plainTool}})
				ctx := context.Background()
				res, _, err := m.run(ctx, a, []keel.Message{keel.UserText("take a snapshot")},
					agent.WithThread("t1"), agent.WithResource("r1"))
				if err != nil {
					t.Fatal(err)
				}
				want := "result:snapshot file:image/png:shot.png file:audio/wav:sound.wav result:plain"
				prompts := model.Prompts()
				if len(prompts) != 2 {
					t.Fatalf("Got(model calls) = %d; want 2", len(prompts))
				}
				last := prompts[1][len(prompts[1])-1]
				if last.Role != keel.RoleTool || describeParts(last) != want {
					t.Errorf("Got(tool message sent to the model) = %s %q; want tool %q", last.Role, describeParts(last), want)
				}
				if got := string(res.ToolResults[0].Output) + " " + string(res.ToolResults[1].Output); got != `"two files" {"ok":true}` {
					t.Errorf("Got(tool outputs) = %s; want the Result's Output, marshalled", got)
				}

				// The store keeps the files in the tool message, bytes and all.
				page, err := store.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var stored *keel.Message
				for i := range page.Messages {
					if page.Messages[i].Role == keel.RoleTool {
						stored = &page.Messages[i]
					}
				}
				if stored == nil || describeParts(*stored) != want {
					t.Fatalf("Got(stored tool message) = %+v; want %q", stored, want)
				}
				if f := stored.Parts[1].(keel.FilePart); !bytes.Equal(f.Data, pngBytes) || f.SHA256 == "" {
					t.Errorf("Got(stored image) = %q (digest %q); want the tool's bytes, with their digest", f.Data, f.SHA256)
				}
				if f := stored.Parts[2].(keel.FilePart); !bytes.Equal(f.Data, wavBytes) {
					t.Errorf("Got(stored sound) = %q; want the tool's bytes", f.Data)
				}
			})
		})
	}
}

func TestNilResultPointerIsNull(t *testing.T) {
	model := keeltest.NewModel(keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "nothing"}}}, keelReply{Text: "ok"})
	nothing := tool.Tool{Name: "nothing", Execute: func(context.Context, tool.Call) (any, error) { return (*tool.Result)(nil), nil }}
	res, err := newAgent(t, agent.Config{Model: model, Tools: []tool.Tool{nothing}}).Generate(context.Background(), []keel.Message{keel.UserText("go")})
	if err != nil {
		t.Fatal(err)
	}
	if tr := res.ToolResults[0]; string(tr.Output) != "null" || tr.IsError {
		t.Errorf("Got(result of a nil *Result) = %s (error %v); want null", tr.Output, tr.IsError)
	}
}

// changingSet is a tool set whose tools a test changes between runs.
type changingSet struct {
	mu    sync.Mutex
	tools []tool.Tool
}

func (s *changingSet) Tools() []tool.Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

func (s *changingSet) set(ts ...tool.Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = ts
}

func setTool(name, answer string) tool.Tool {
	return tool.Tool{Name: name, Description: answer, Execute: func(context.Context, tool.Call) (any, error) { return answer, nil }}
}

func toolNames(defs []keel.ToolDefinition) string {
	var names []string
	for _, d := range defs {
		names = append(names, d.Name+"="+d.Description)
	}
	return strings.Join(names, " ")
}

func TestToolSetsAreReadAtEachRun(t *testing.T) {
	var logs bytes.Buffer
	set := &changingSet{}
	set.set(setTool("echo", "from the set"))
	model := keeltest.NewModel(
		keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "echo"}}}, keelReply{Text: "one"},
		keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c2", Name: "echo"}, {ID: "c3", Name: "later"}}}, keelReply{Text: "two"},
	)
	a := newAgent(t, agent.Config{Model: model, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Tools: []tool.Tool{setTool("own", "the agent's")}, ToolSets: []tool.Set{set, tool.Tools{setTool("own", "a second own")}}})

	if got := toolNames(toolDefs(a.Tools())); got != "own=the agent's echo=from the set" {
		t.Errorf("Got(agent.Tools()) = %q; want its own tool, then the set's, each name once", got)
	}
	ctx := context.Background()
	if _, err := a.Generate(ctx, []keel.Message{keel.UserText("first")}); err != nil {
		t.Fatal(err)
	}
	// The set changes between runs, as an MCP server's list may: the
	// next run sees the new tools, the old one is gone.
	set.set(setTool("later", "added later"))
	res, err := a.Generate(ctx, []keel.Message{keel.UserText("second")})
	if err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	if got := toolNames(reqs[0].Tools); got != "own=the agent's echo=from the set" {
		t.Errorf("Got(tools of the first run) = %q; want own and echo", got)
	}
	if got := toolNames(reqs[2].Tools); got != "own=the agent's later=added later" {
		t.Errorf("Got(tools of the second run) = %q; want own and later", got)
	}
	if tr := res.ToolResults; len(tr) != 2 || !tr[0].IsError || string(tr[1].Output) != `"added later"` {
		t.Errorf("Got(second run's results) = %+v; want echo unknown, later answered", tr)
	}
	if !strings.Contains(logs.String(), "tool=own") {
		t.Errorf("Got(log) = %q; want a warning that the second own was left out", logs.String())
	}
}

func TestNilToolSetIsRefused(t *testing.T) {
	_, err := agent.New(agent.Config{ID: "a", Model: keeltest.NewModel(), ToolSets: []tool.Set{nil}})
	if err == nil || !strings.Contains(err.Error(), "ToolSets[0] is nil") {
		t.Errorf("Got(agent.New with a nil set) = %v; want an invalid config error", err)
	}
}

func toolDefs(ts []tool.Tool) []keel.ToolDefinition {
	defs := make([]keel.ToolDefinition, len(ts))
	for i, t := range ts {
		defs[i] = t.Definition()
	}
	return defs
}
