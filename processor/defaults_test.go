package processor_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/processor"
)

// idProc is a processor known only by its ID and a tag telling the user's
// from the defaults.
type idProc struct{ id, tag string }

func (p idProc) ID() string { return p.id }

func describe(ps []processor.Processor) string {
	var out []string
	for _, p := range ps {
		s := p.ID()
		if ip, ok := p.(idProc); ok && ip.tag != "" {
			s += "(" + ip.tag + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

func TestDefaultErrorProcessors(t *testing.T) {
	ps := processor.DefaultErrorProcessors()
	if got, want := describe(ps), "prefill-error-handler,unsupported-file-handler,stream-error-retry-processor"; got != want {
		t.Fatalf("Got(DefaultErrorProcessors) = %s; want %s", got, want)
	}
	for _, p := range ps {
		if _, ok := p.(processor.APIErrorHandler); !ok {
			t.Errorf("Got(%s is APIErrorHandler) = false; want true", p.ID())
		}
	}
	if _, ok := ps[1].(processor.LLMRequestRewriter); !ok {
		t.Errorf("Got(unsupported-file-handler is LLMRequestRewriter) = false; want true")
	}
	// The third is the agent's default instance: 2 retries, 3 s apart.
	run := processor.NewRun("r", nil)
	h := ps[2].(processor.APIErrorHandler)
	var delays []time.Duration
	for range 3 {
		d, _ := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: apiErr(503)})
		if d.Retry {
			delays = append(delays, d.Delay)
		}
	}
	if got, want := fmt.Sprint(delays), "[3s 3s]"; got != want {
		t.Errorf("Got(default stream retry delays) = %s; want %s", got, want)
	}
}

func TestMergeErrorProcessors(t *testing.T) {
	defaults := []processor.Processor{idProc{id: "a"}, idProc{id: "b"}, idProc{id: "c"}}
	tests := []struct {
		name string
		user []processor.Processor
		want string
	}{
		{"no user processors", nil, "a,b,c"},
		{"others after the defaults, in order", []processor.Processor{idProc{id: "y"}, idProc{id: "x"}}, "a,b,c,y,x"},
		{"same ID takes the slot", []processor.Processor{idProc{id: "b", tag: "user"}}, "a,b(user),c"},
		{"mixed", []processor.Processor{idProc{id: "z"}, idProc{id: "c", tag: "user"}, idProc{id: "a", tag: "user"}, idProc{id: "y"}},
			"a(user),b,c(user),z,y"},
		{"repeated ID: first takes the slot", []processor.Processor{idProc{id: "b", tag: "1"}, idProc{id: "b", tag: "2"}}, "a,b(1),c,b(2)"},
		{"nil dropped", []processor.Processor{nil, idProc{id: "x"}, nil}, "a,b,c,x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			userBefore := describeOrNil(tt.user)
			got := describe(processor.MergeErrorProcessors(defaults, tt.user))
			if got != tt.want {
				t.Errorf("Got(%q) = %s; want %s", tt.name, got, tt.want)
			}
			if describe(defaults) != "a,b,c" || describeOrNil(tt.user) != userBefore {
				t.Errorf("Got(%q inputs) changed; want them untouched", tt.name)
			}
		})
	}
	if got := describe(processor.MergeErrorProcessors(nil, []processor.Processor{idProc{id: "x"}})); got != "x" {
		t.Errorf("Got(no defaults) = %s; want x", got)
	}
}

func describeOrNil(ps []processor.Processor) string {
	var out []string
	for _, p := range ps {
		if p == nil {
			out = append(out, "<nil>")
			continue
		}
		out = append(out, describe([]processor.Processor{p}))
	}
	return strings.Join(out, ",")
}

func ExampleMergeErrorProcessors() {
	retry := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 5, Delay: time.Second})
	audit := idProc{id: "audit"}
	for _, p := range processor.MergeErrorProcessors(processor.DefaultErrorProcessors(), []processor.Processor{audit, retry}) {
		if p == processor.Processor(retry) {
			fmt.Println(p.ID(), "(yours, in the default's slot)")
			continue
		}
		fmt.Println(p.ID())
	}
	// Output:
	// prefill-error-handler
	// unsupported-file-handler
	// stream-error-retry-processor (yours, in the default's slot)
	// audit
}
