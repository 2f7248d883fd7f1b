package sandboxtest

import (
	"context"
	"slices"
	"testing"

	"github.com/keel-go/keel/workspace"
)

func testRemoveAll(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	ctx := context.Background()

	t.Run("Tree", func(t *testing.T) {
		sb := newSandbox(t)
		rm := as[workspace.TreeRemover](t, sb)
		for _, p := range []string{"uploads/t1/a.csv", "uploads/t1/sub/b.bin", "uploads/t2/c.csv", "single.txt"} {
			putIn(t, sb, p, []byte(p))
		}
		if err := rm.RemoveAll(ctx, "uploads/t1"); err != nil {
			t.Fatalf("Got(RemoveAll(uploads/t1)) error %v; want none", err)
		}
		if got := listIn(t, sb, "uploads"); !slices.Equal(got, []string{"t2"}) {
			t.Errorf("Got(uploads after RemoveAll(uploads/t1)) = %q; want only t2", got)
		}
		equalBytes(t, "uploads/t2/c.csv after removing t1", readIn(t, sb, "uploads/t2/c.csv"), []byte("uploads/t2/c.csv"))
		for _, p := range []string{"uploads/t1", "never/there", "single.txt"} {
			if err := rm.RemoveAll(ctx, p); err != nil {
				t.Errorf("Got(RemoveAll(%q)) error %v; want none (missing is not an error, a file goes too)", p, err)
			}
		}
		if got := listIn(t, sb, "."); slices.Contains(got, "single.txt") {
			t.Errorf("Got(%q) after RemoveAll(single.txt); want the file gone", got)
		}
	})

	t.Run("Escapes", func(t *testing.T) {
		sb := newSandbox(t)
		rm := as[workspace.TreeRemover](t, sb)
		putIn(t, sb, "inside.txt", []byte("inside"))
		for _, p := range append([]string{"", ".", "./"}, escapingPaths...) {
			wantEscape(t, "RemoveAll", p, rm.RemoveAll(ctx, p))
		}
		equalBytes(t, "inside.txt after refused removals", readIn(t, sb, "inside.txt"), []byte("inside"))
	})

	t.Run("Symlinks", func(t *testing.T) {
		sb := newSandbox(t)
		rm := as[workspace.TreeRemover](t, sb)
		r := as[workspace.CommandRunner](t, sb)
		mustRun(t, r, `mkdir -p keep/inner && printf kept > keep/inner/f && ln -s keep link && ln -s / root && ln -s ../../../../../.. up`)
		// A link at the path goes, not what it points to.
		if err := rm.RemoveAll(ctx, "link"); err != nil {
			t.Fatalf("Got(RemoveAll(link)) error %v; want none", err)
		}
		if got := listIn(t, sb, "."); slices.Contains(got, "link") || !slices.Contains(got, "keep") {
			t.Errorf("Got(%q) after RemoveAll(link); want the link gone and keep there", got)
		}
		equalBytes(t, "keep/inner/f after RemoveAll(link)", readIn(t, sb, "keep/inner/f"), []byte("kept"))
		// A path through a link that leads out is refused.
		for _, p := range []string{"root/tmp", "root/etc/passwd", "up/etc", "up/home"} {
			wantEscape(t, "RemoveAll", p, rm.RemoveAll(ctx, p))
		}
	})
}

// putIn writes a file into sb through its FileSystem, else through a
// command.
func putIn(t *testing.T, sb workspace.Sandbox, p string, data []byte) {
	t.Helper()
	if fsys, ok := sb.(workspace.FileSystem); ok {
		mustWrite(t, fsys, p, data)
		return
	}
	r := as[workspace.CommandRunner](t, sb)
	q := workspace.ShellQuote(p)
	res, err := r.RunCommand(context.Background(), workspace.Command{
		Line:  `mkdir -p "$(dirname -- ` + q + `)" && cat > ` + q,
		Stdin: data,
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Got(write %s by command) = %v, %v; want exit 0", p, res, err)
	}
}
