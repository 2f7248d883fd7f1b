package agent_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// TestDeleteThreadRemovesItsUploads: a file the model refused, uploaded to
// the resource's real sandbox, goes with its thread; the resource's other
// threads keep theirs.
func TestDeleteThreadRemovesItsUploads(t *testing.T) {
	root := sandboxtest.ReachableTempDir(t)
	ws := workspace.NewResolved(localsandbox.NewResolver(root, localsandbox.PerResource, localsandbox.Options{Logger: slog.New(slog.DiscardHandler)}))
	mem := memory.NewInMemory()
	refusal := keelReply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType, MediaType: xlsxType}}
	model := keeltest.NewModel(refusal, keelReply{Text: "one"}, refusal, keelReply{Text: "two"})
	a, err := agent.New(agent.Config{ID: "a", Model: model, Memory: mem, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, th := range []string{"t1", "t2"} {
		if _, err := a.Generate(ctx, []keel.Message{userMsg(keel.TextPart{Text: "count"}, xlsx(th+".xlsx"))},
			agent.WithThread(th), agent.WithResource("alice")); err != nil {
			t.Fatal(err)
		}
	}
	sandbox := filepath.Join(root, "resource-"+localsandbox.DirName("alice"), "uploads")
	for _, th := range []string{"t1", "t2"} {
		if _, err := os.Stat(filepath.Join(sandbox, th)); err != nil {
			t.Fatalf("Got(stat of %s's uploads) error %v; want the refused file uploaded", th, err)
		}
	}

	if err := agent.DeleteThread(ctx, mem, []*agent.Agent{a}, "alice", "t1"); err != nil {
		t.Fatalf("Got(DeleteThread) error %v; want none", err)
	}
	if _, err := os.Stat(filepath.Join(sandbox, "t1")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(stat of t1's uploads after the delete) error %v; want them gone", err)
	}
	if _, err := os.Stat(filepath.Join(sandbox, "t2")); err != nil {
		t.Errorf("Got(stat of t2's uploads) error %v; want them kept", err)
	}
	if _, err := mem.GetThread(ctx, "alice", "t1"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Got(GetThread(t1)) error %v; want the thread gone", err)
	}
	if _, err := mem.GetThread(ctx, "alice", "t2"); err != nil {
		t.Errorf("Got(GetThread(t2)) error %v; want it kept", err)
	}
}

// TestDeleteThreadRemovesItsSandbox: with a sandbox per thread, the
// thread's whole sandbox goes with it (what its commands wrote too),
// without being made again to remove its uploads; another thread's
// stays, and a thread that never had one is deleted all the same.
func TestDeleteThreadRemovesItsSandbox(t *testing.T) {
	root := sandboxtest.ReachableTempDir(t)
	ws := workspace.NewResolved(localsandbox.NewResolver(root, localsandbox.PerThread, localsandbox.Options{Logger: slog.New(slog.DiscardHandler)}))
	mem := memory.NewInMemory()
	refusal := keelReply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType, MediaType: xlsxType}}
	model := keeltest.NewModel(refusal, keelReply{Text: "one"}, refusal, keelReply{Text: "two"})
	a, err := agent.New(agent.Config{ID: "a", Model: model, Memory: mem, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := func(th string) string { return filepath.Join(root, "thread-"+localsandbox.DirName(th)) }
	for _, th := range []string{"t1", "t2"} {
		if _, err := a.Generate(ctx, []keel.Message{userMsg(keel.TextPart{Text: "count"}, xlsx(th+".xlsx"))},
			agent.WithThread(th), agent.WithResource("alice")); err != nil {
			t.Fatal(err)
		}
		// What a command would have written beside the uploads.
		if err := os.WriteFile(filepath.Join(dir(th), "notes.txt"), []byte("kept by "+th), 0o644); err != nil {
			t.Fatalf("Got(write into %s's sandbox) error %v; want the sandbox made by its run", th, err)
		}
	}
	if _, err := mem.CreateThread(ctx, memory.Thread{ID: "t3", ResourceID: "alice"}); err != nil {
		t.Fatal(err)
	}

	for _, th := range []string{"t1", "t3"} {
		if err := agent.DeleteThread(ctx, mem, []*agent.Agent{a}, "alice", th); err != nil {
			t.Fatalf("Got(DeleteThread(%s)) error %v; want none", th, err)
		}
		if _, err := os.Stat(dir(th)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Got(stat of %s's sandbox after the delete) error %v; want it gone, not made again", th, err)
		}
		if _, err := mem.GetThread(ctx, "alice", th); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("Got(GetThread(%s)) error %v; want the thread gone", th, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir("t2"), "notes.txt")); err != nil || string(b) != "kept by t2" {
		t.Errorf("Got(t2's notes) = %q, %v; want its sandbox kept", b, err)
	}
}

// failingRemover is a sandbox whose trees cannot be removed.
type failingRemover struct{ *keeltest.Sandbox }

var errRemove = errors.New("device busy")

func (failingRemover) RemoveAll(context.Context, string) error { return errRemove }

// filesOnly hides every capability but the files.
type filesOnly struct{ workspace.FileSystem }

func TestDeleteThread(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, sandboxes ...workspace.Sandbox) (memory.Store, []*agent.Agent) {
		t.Helper()
		mem := memory.NewInMemory()
		for _, th := range []memory.Thread{{ID: "t1", ResourceID: "alice"}, {ID: "t2", ResourceID: "bob"}} {
			if _, err := mem.CreateThread(ctx, th); err != nil {
				t.Fatal(err)
			}
		}
		var agents []*agent.Agent
		for i, sb := range sandboxes {
			if fsb, ok := sb.(workspace.FileSystem); ok {
				for _, p := range []string{"uploads/t1/a.csv", "uploads/t2/b.csv"} {
					if err := fsb.WriteFile(ctx, p, []byte("x")); err != nil {
						t.Fatal(err)
					}
				}
			}
			var ws *workspace.Workspace
			if sb != nil {
				ws = workspace.New(sb)
			}
			a, err := agent.New(agent.Config{ID: string(rune('a' + i)), Model: keeltest.NewModel(), Memory: mem, Workspace: ws,
				Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			agents = append(agents, a)
		}
		return mem, agents
	}
	has := func(sb *keeltest.Sandbox, p string) bool { _, ok := sb.Files()[p]; return ok }

	t.Run("every agent's sandbox", func(t *testing.T) {
		one, two := keeltest.NewSandbox("one"), keeltest.NewSandbox("two")
		mem, agents := setup(t, one, two, nil)
		if err := agent.DeleteThread(ctx, mem, agents, "alice", "t1"); err != nil {
			t.Fatal(err)
		}
		for _, sb := range []*keeltest.Sandbox{one, two} {
			if has(sb, "uploads/t1/a.csv") || !has(sb, "uploads/t2/b.csv") {
				t.Errorf("Got(files of %s) = %v; want t1's removed, t2's kept", sb.ID(), sb.Files())
			}
		}
	})
	t.Run("another resource's thread", func(t *testing.T) {
		sb := keeltest.NewSandbox("one")
		mem, agents := setup(t, sb)
		err := agent.DeleteThread(ctx, mem, agents, "alice", "t2")
		if !errors.Is(err, memory.ErrNotFound) || !has(sb, "uploads/t2/b.csv") {
			t.Errorf("Got(DeleteThread of bob's thread as alice) error %v, files %v; want not found and nothing removed", err, sb.Files())
		}
		if _, err := mem.GetThread(ctx, "bob", "t2"); err != nil {
			t.Errorf("Got(GetThread(bob, t2)) error %v; want it kept", err)
		}
	})
	t.Run("removal fails", func(t *testing.T) {
		mem, agents := setup(t, failingRemover{keeltest.NewSandbox("busy")})
		if err := agent.DeleteThread(ctx, mem, agents, "alice", "t1"); !errors.Is(err, errRemove) {
			t.Errorf("Got(DeleteThread) error %v; want the removal's", err)
		}
		if _, err := mem.GetThread(ctx, "alice", "t1"); err != nil {
			t.Errorf("Got(GetThread(t1)) error %v; want the thread kept, to try again", err)
		}
	})
	t.Run("sandbox that cannot remove trees", func(t *testing.T) {
		sb := keeltest.NewSandbox("plain")
		mem, agents := setup(t, filesOnly{sb})
		if err := agent.DeleteThread(ctx, mem, agents, "alice", "t1"); err != nil {
			t.Fatal(err)
		}
		if _, err := mem.GetThread(ctx, "alice", "t1"); !errors.Is(err, memory.ErrNotFound) || !has(sb, "uploads/t1/a.csv") {
			t.Errorf("Got(GetThread(t1)) error %v, files %v; want the thread gone, its files kept", err, sb.Files())
		}
	})
	t.Run("no memory", func(t *testing.T) {
		if err := agent.DeleteThread(ctx, nil, nil, "alice", "t1"); !errors.Is(err, agent.ErrNoMemory) {
			t.Errorf("Got(DeleteThread without memory) error %v; want ErrNoMemory", err)
		}
	})
}
