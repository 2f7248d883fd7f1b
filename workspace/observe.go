package workspace

import (
	"context"

	"github.com/keel-go/keel/observe"
)

// RunCommand runs cmd in r and reports it as an observe.Command op to the
// observer ctx carries (an agent's run carries one when it is observed);
// without one it is r.RunCommand and nothing else. Code that runs a
// sandbox's commands for an agent (its tools, the uploader) calls this
// rather than r.RunCommand, so that each command is counted and traced.
func RunCommand(ctx context.Context, r CommandRunner, cmd Command) (*CommandResult, error) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return r.RunCommand(ctx, cmd)
	}
	op := observe.NewOp()
	*op = observe.Op{Kind: observe.Command, Sandbox: r.ID(), ExitCode: -1}
	ctx, span := obs.Start(ctx, op)
	res, err := r.RunCommand(ctx, cmd)
	if res != nil && err == nil {
		op.ExitCode = res.ExitCode
	}
	span.End(err)
	observe.ReleaseOp(op)
	return res, err
}
