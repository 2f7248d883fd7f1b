package sandboxtest

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/keel-go/keel/workspace"
)

// CommandOnly returns sb with only its [workspace.CommandRunner] and
// [workspace.WorkDirer] capabilities, hiding [workspace.FileSystem], so
// that a test can prove uploads and tools work through commands alone. It
// is also a [workspace.TreeRemover] that removes trees with rm -rf. A
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

// linkOnTheWay is the exit code of RemoveAll's command when a directory on
// the way to the path is a symbolic link.
const linkOnTheWay = 3

// RemoveAll removes the tree at p with rm -rf, which removes a link at p
// rather than follow it. A path through any symbolic link is refused:
// from the command's side a link may lead anywhere the command can write.
func (s commandSandbox) RemoveAll(ctx context.Context, p string) error {
	clean := path.Clean(p)
	switch {
	case p == "" || clean == ".":
		return fmt.Errorf("sandboxtest: remove all: %w: cannot remove the working directory", workspace.ErrPathEscapes)
	case path.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../"):
		return fmt.Errorf("sandboxtest: remove all %q: %w", p, workspace.ErrPathEscapes)
	}
	line := fmt.Sprintf(`p=%s; d=$(dirname -- "$p"); while [ "$d" != . ]; do `+
		`if [ -L "$d" ]; then echo "$d is a symbolic link" >&2; exit %d; fi; d=$(dirname -- "$d"); done; rm -rf -- "$p"`,
		workspace.ShellQuote(clean), linkOnTheWay)
	res, err := s.r.RunCommand(ctx, workspace.Command{Line: line})
	switch {
	case err != nil:
		return fmt.Errorf("sandboxtest: remove all %q: %w", p, err)
	case res.ExitCode == linkOnTheWay:
		return fmt.Errorf("sandboxtest: remove all %q: %s: %w", p, strings.TrimSpace(string(res.Stderr)), workspace.ErrPathEscapes)
	case res.ExitCode != 0:
		return fmt.Errorf("sandboxtest: remove all %q: exit %d: %s", p, res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	return nil
}

type commandDirSandbox struct {
	commandSandbox
	wd workspace.WorkDirer
}

func (s commandDirSandbox) WorkDir() string { return s.wd.WorkDir() }
