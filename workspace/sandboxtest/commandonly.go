package sandboxtest

import (
	"context"

	"github.com/keel-go/keel/workspace"
)

// CommandOnly returns sb with only its [workspace.CommandRunner] and
// [workspace.WorkDirer] capabilities, hiding [workspace.FileSystem], so
// that a test can prove uploads and tools work through commands alone. A
// capability sb lacks is lacking in the result too: a sandbox with no
// CommandRunner gives one that can do nothing but name itself.
func CommandOnly(sb workspace.Sandbox) workspace.Sandbox {
	runner, canRun := sb.(workspace.CommandRunner)
	wd, hasDir := sb.(workspace.WorkDirer)
	switch {
	case canRun && hasDir:
		return commandDirSandbox{commandSandbox{runner}, wd}
	case canRun:
		return commandSandbox{runner}
	default:
		return idOnly{sb}
	}
}

type idOnly struct{ sb workspace.Sandbox }

func (s idOnly) ID() string { return s.sb.ID() }

type commandSandbox struct{ r workspace.CommandRunner }

func (s commandSandbox) ID() string { return s.r.ID() }

func (s commandSandbox) RunCommand(ctx context.Context, c workspace.Command) (*workspace.CommandResult, error) {
	return s.r.RunCommand(ctx, c)
}

type commandDirSandbox struct {
	commandSandbox
	wd workspace.WorkDirer
}

func (s commandDirSandbox) WorkDir() string { return s.wd.WorkDir() }
