package agent_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// TestNotAFilesFault checks that a bad key, no access or an unknown model
// surface after one call, with their own error, even with a file the
// model may not read attached: nothing is uploaded, converted or retried.
func TestNotAFilesFault(t *testing.T) {
	for _, status := range []int{401, 403, 404} {
		forModes(t, func(t *testing.T, m mode) {
			answer := &keel.APICallError{Provider: "google", StatusCode: status, Message: fmt.Sprint("status ", status)}
			model := keeltest.NewModel(keelReply{Err: answer})
			model.RepeatLast = true
			sb := keeltest.NewSandbox("sb")
			a := newAgent(t, agent.Config{Model: model, Workspace: workspace.New(sb), Files: processor.UnsupportedFileOptions{Converters: convert.Default()}})
			_, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "read"}, xlsx("leads.xlsx"))})
			var api *keel.APICallError
			if !errors.As(err, &api) || api != answer {
				t.Fatalf("Got(%d: error) = %v; want the provider's error itself", status, err)
			}
			if n := model.Calls(); n != 1 {
				t.Errorf("Got(%d: calls) = %d; want 1", status, n)
			}
			if w := sb.Writes(); len(w) != 0 {
				t.Errorf("Got(%d: sandbox writes) = %d; want none", status, len(w))
			}
		})
	}
}
