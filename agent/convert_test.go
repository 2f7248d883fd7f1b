package agent_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
)

// countingConverter counts the conversions it is asked for.
type countingConverter struct {
	next  *convert.Registry
	calls atomic.Int64
}

func (c *countingConverter) Convert(ctx context.Context, in convert.Input) (*convert.Result, error) {
	c.calls.Add(1)
	return c.next.Convert(ctx, in)
}

// TestRefusedFileConvertedOncePerRun runs a turn whose model refuses a
// workbook with Gemini's 502, then calls a tool, then answers: every call
// after the refusal gets the sandbox's note and the sheet's text, and the
// workbook is converted once.
func TestRefusedFileConvertedOncePerRun(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := keeltest.NewModel(
			keelReply{Err: &keel.APICallError{Provider: "google", StatusCode: 502, Message: "An internal error has occurred."}},
			keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "noop", Input: []byte(`{}`)}}},
			keelReply{Text: "Two leads."},
		)
		conv := &countingConverter{next: convert.Default()}
		noop := tool.Tool{Name: "noop", Execute: func(context.Context, tool.Call) (any, error) { return "ok", nil }}
		a := newAgent(t, agent.Config{Model: model, Tools: []tool.Tool{noop}, Files: processor.UnsupportedFileOptions{Converters: conv},
			Workspace: workspace.New(keeltest.NewSandbox("sb"))})
		book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
		res, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Count"},
			keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"})})
		if err != nil {
			t.Fatal(err)
		}
		prompts := model.Prompts()
		if len(prompts) != 3 || res.Text != "Two leads." {
			t.Fatalf("Got(calls) = %d, %q; want 3 and the answer", len(prompts), res.Text)
		}
		for i, p := range prompts[1:] {
			parts := userParts(p)
			if len(parts) != 3 || !strings.HasPrefix(parts[1], "[File uploaded to the sandbox]\n") ||
				!strings.HasSuffix(parts[2], "Name,City\nAda,Berlin") || countFiles(p) != 0 {
				t.Errorf("Got(call %d user parts) = %q; want the text, the note and the sheet, no file", i+2, parts)
			}
		}
		if n := conv.calls.Load(); n != 1 {
			t.Errorf("Got(conversions in a 3-call run) = %d; want 1", n)
		}
		if len(res.Recoveries) != 1 || res.Recoveries[0].Action != "converted" {
			t.Errorf("Got(recoveries) = %+v; want one converted", res.Recoveries)
		}
	})
}
