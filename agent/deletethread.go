package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/workspace"
)

// DeleteThread deletes the thread threadID of resourceID, and the files
// uploaded for it: the thread's uploads directory, where the upload writer
// puts them (uploads/ followed by [workspace.UploadDir] of the thread and
// resource), is removed from the sandbox that each agent's workspace
// resolves for the thread, then the thread and its messages are deleted
// from mem. The server's and the command line's thread deletion both call
// it, with every agent they serve, since any of them may have run in the
// thread.
//
// A workspace whose sandboxes are per thread ([workspace.ThreadRemover])
// removes the thread's sandbox whole instead: its directory, or its
// container and volume, with everything its commands wrote.
//
// A thread that does not exist, or is another resource's, is an error
// wrapping [memory.ErrNotFound], and nothing is removed. The uploads go
// before the thread, so that a removal that fails leaves the thread in
// place and the call can be made again. Agents that share a workspace are
// asked once; an agent without a workspace, or whose workspace has no
// sandbox for the thread, has nothing to remove. A sandbox without the
// [workspace.TreeRemover] capability keeps the files, and the agent's
// logger says so. A file a run of the thread uploads while the thread is
// being deleted may stay.
func DeleteThread(ctx context.Context, mem memory.Store, agents []*Agent, resourceID, threadID string) error {
	if mem == nil {
		return ErrNoMemory
	}
	if _, err := mem.GetThread(ctx, resourceID, threadID); err != nil {
		return fmt.Errorf("agent: delete thread %s: %w", threadID, err)
	}
	dir := "uploads/" + workspace.UploadDir(threadID, resourceID)
	seen := make(map[*workspace.Workspace]bool)
	for _, a := range agents {
		ws := a.cfg.Workspace
		if ws == nil || seen[ws] {
			continue
		}
		seen[ws] = true
		scope := workspace.Scope{AgentID: a.cfg.ID, ThreadID: threadID, ResourceID: resourceID}
		// A sandbox of the thread's own goes whole, container and all on
		// Docker, rather than being made (or started) to have its
		// uploads removed.
		removed, err := ws.RemoveThread(ctx, scope)
		if err != nil {
			return fmt.Errorf("agent: delete thread %s: %w (the thread is kept: try again)", threadID, err)
		}
		if removed {
			continue
		}
		sb, err := ws.Sandbox(ctx, scope)
		switch {
		case errors.Is(err, workspace.ErrNoSandbox):
			continue
		case err != nil:
			return fmt.Errorf("agent: delete thread %s: %w", threadID, err)
		}
		rm, ok := sb.(workspace.TreeRemover)
		if !ok {
			a.logger.Warn("uploads of a deleted thread stay: the sandbox cannot remove a directory",
				"agent", a.cfg.ID, "thread", threadID, "sandbox", sb.ID(), "dir", dir)
			continue
		}
		if err := rm.RemoveAll(ctx, dir); err != nil {
			return fmt.Errorf("agent: delete thread %s: remove its uploads from %s: %w (the thread is kept: try again)", threadID, sb.ID(), err)
		}
	}
	if err := mem.DeleteThread(ctx, resourceID, threadID); err != nil {
		return fmt.Errorf("agent: delete thread %s: %w", threadID, err)
	}
	return nil
}
