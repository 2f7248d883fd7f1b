package sandboxtest

import (
	"context"
	"testing"

	"github.com/keel-go/keel/workspace"
)

// escapingPaths leave the sandbox by their text alone.
var escapingPaths = []string{
	"../outside.txt",
	"..",
	"a/../../outside.txt",
	"/etc/passwd",
	"/tmp/outside.txt",
}

func testEscapes(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	ctx := context.Background()

	t.Run("Paths", func(t *testing.T) {
		fsys := as[workspace.FileSystem](t, newSandbox(t))
		mustWrite(t, fsys, "inside.txt", []byte("inside"))
		for _, p := range escapingPaths {
			wantEscapeEverywhere(t, fsys, p)
			wantEscape(t, "Rename from", p, fsys.Rename(ctx, p, "inside.txt"))
		}
		got, err := fsys.ReadFile(ctx, "inside.txt")
		if err != nil {
			t.Fatal(err)
		}
		equalBytes(t, "ReadFile(inside.txt) after refused renames", got, []byte("inside"))
	})

	t.Run("PlantedSymlinks", func(t *testing.T) {
		sb := newSandbox(t)
		fsys := as[workspace.FileSystem](t, sb)
		r := as[workspace.CommandRunner](t, sb)
		// Links a command may leave behind. Inside an isolated sandbox they
		// point at the sandbox's own view; on the host side they must not
		// be followed out of the directory.
		mustRun(t, r, `ln -s / root && ln -s /etc/passwd passwd && ln -s ../../../../../../../.. up &&
			mkdir -p d && ln -s ../.. d/up2 && printf 'inside' > target.txt && ln -s target.txt link`)
		for _, p := range []string{"root/etc/passwd", "passwd", "up/etc/passwd", "d/up2/x"} {
			_, err := fsys.ReadFile(ctx, p)
			wantEscape(t, "ReadFile", p, err)
			_, err = fsys.Stat(ctx, p)
			wantEscape(t, "Stat", p, err)
		}
		for _, p := range []string{"root/tmp/escaped.txt", "up/tmp/escaped.txt", "d/up2/escaped.txt", "passwd"} {
			wantEscape(t, "WriteFile", p, fsys.WriteFile(ctx, p, []byte("escaped")))
		}
		for _, p := range []string{"root", "up", "d/up2"} {
			_, err := fsys.ReadDir(ctx, p)
			wantEscape(t, "ReadDir", p, err)
		}
		// A link that stays inside works.
		got, err := fsys.ReadFile(ctx, "link")
		if err != nil {
			t.Fatalf("Got(ReadFile(link)) error %v; want none: the link stays inside", err)
		}
		equalBytes(t, "ReadFile(link)", got, []byte("inside"))
	})
}

func wantEscapeEverywhere(t *testing.T, fsys workspace.FileSystem, p string) {
	t.Helper()
	ctx := context.Background()
	wantEscape(t, "WriteFile", p, fsys.WriteFile(ctx, p, []byte("escaped")))
	_, err := fsys.ReadFile(ctx, p)
	wantEscape(t, "ReadFile", p, err)
	_, err = fsys.Stat(ctx, p)
	wantEscape(t, "Stat", p, err)
	_, err = fsys.ReadDir(ctx, p)
	wantEscape(t, "ReadDir", p, err)
	wantEscape(t, "Remove", p, fsys.Remove(ctx, p))
	wantEscape(t, "Rename", p, fsys.Rename(ctx, "inside.txt", p))
}
