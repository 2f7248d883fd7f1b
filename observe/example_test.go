package observe_test

import (
	"context"
	"fmt"

	"github.com/keel-go/keel/observe"
)

// printer is an Observer that prints each op as it ends.
type printer struct{}

func (printer) Start(ctx context.Context, op *observe.Op) (context.Context, observe.Span) {
	return ctx, printSpan{op}
}

type printSpan struct{ op *observe.Op }

func (s printSpan) End(err error) {
	fmt.Printf("%s %s exit %d, err %v\n", s.op.Kind, s.op.Sandbox, s.op.ExitCode, err)
}

// Code that has only a context reports to the observer it carries; with
// none, Start gives a span that does nothing.
func Example() {
	run := func(ctx context.Context) {
		op := &observe.Op{Kind: observe.Command, Sandbox: "sb-1"}
		_, span := observe.Start(ctx, op)
		op.ExitCode = 0
		span.End(nil)
	}
	run(context.Background()) // nobody observes: nothing is printed
	run(observe.NewContext(context.Background(), printer{}))
	// Output:
	// command sb-1 exit 0, err <nil>
}

// Code that starts an operation on every call takes its Op from the pool
// and gives it back once the span has ended, when no Observer reads it
// any more.
func ExampleNewOp() {
	ctx := observe.NewContext(context.Background(), printer{})
	for exit := range 2 {
		op := observe.NewOp()
		*op = observe.Op{Kind: observe.Command, Sandbox: "sb-1"}
		_, span := observe.Start(ctx, op)
		op.ExitCode = exit
		span.End(nil)
		observe.ReleaseOp(op)
	}
	// Output:
	// command sb-1 exit 0, err <nil>
	// command sb-1 exit 1, err <nil>
}
