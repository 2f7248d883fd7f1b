package agent

import (
	"cmp"
	"context"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// windowSize is the run's history window: the number of the thread's last
// messages it sends, 0 for all of them.
func (a *Agent) windowSize(o runOptions) int {
	return max(cmp.Or(o.lastMessages, a.cfg.LastMessages), 0)
}

// loadWindow reads the run's history window of the thread: its last
// messages, as many as windowSize says, oldest first, and the number of
// messages the thread holds. The store reads only those rows, by its
// index on the thread's order. A window
// never begins with a tool result: the model would get an answer to a
// call it never made, which providers refuse. When the edge falls between
// a call and its result, the window reaches back to the call (one more
// message, as often as it takes) rather than dropping the result, so the
// model still sees what its tool answered.
func (a *Agent) loadWindow(ctx context.Context, o runOptions) ([]keel.Message, int, error) {
	n := a.windowSize(o)
	for {
		page, err := a.cfg.Memory.ListMessages(ctx, o.resourceID, o.threadID, memory.ListMessagesOptions{Last: n})
		if err != nil {
			return nil, 0, fmt.Errorf("agent: load thread %s: %w", o.threadID, err)
		}
		msgs := page.Messages
		if n == 0 || len(msgs) == 0 || len(msgs) >= page.Total || !answersCall(msgs[0]) {
			return msgs, page.Total, nil
		}
		n = len(msgs) + 1
	}
}

// answersCall reports whether m holds tool results, which must follow the
// message holding their calls.
func answersCall(m keel.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(keel.ToolResultPart); ok {
			return true
		}
	}
	return false
}
