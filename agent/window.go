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
// messages the thread holds. The store reads only those rows. A window
// never begins with a tool result: the model would get an answer to a
// call it never made, which providers refuse. When the edge falls between
// a call and its result, the window reaches back to the call (one more
// message, as often as it takes) rather than dropping the result, so the
// model still sees what its tool answered.
func (a *Agent) loadWindow(ctx context.Context, o runOptions) ([]keel.Message, int, error) {
	n := a.windowSize(o)
	for {
		msgs, total, err := lastMessages(ctx, a.cfg.Memory, o.resourceID, o.threadID, n)
		if err != nil {
			return nil, 0, fmt.Errorf("agent: load thread %s: %w", o.threadID, err)
		}
		if n == 0 || len(msgs) == 0 || len(msgs) >= total || !answersCall(msgs[0]) {
			return msgs, total, nil
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

// lastMessages returns the thread's last n messages (all for n == 0),
// oldest first, and the thread's number of messages. The store reads only
// those rows, by its index on the thread's order.
func lastMessages(ctx context.Context, mem memory.Store, resourceID, threadID string, n int) ([]keel.Message, int, error) {
	page, err := mem.ListMessages(ctx, resourceID, threadID, memory.ListMessagesOptions{Last: n})
	return page.Messages, page.Total, err
}
