package sandboxtest

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"testing"

	"github.com/keel-go/keel/workspace"
)

func testFiles(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	ctx := context.Background()

	t.Run("WriteReadExact", func(t *testing.T) {
		fsys := as[workspace.FileSystem](t, newSandbox(t))
		for _, tc := range []struct {
			path string
			data []byte
		}{
			{"exact.bin", pattern(70_001)},
			{"deep/er/nested.bin", pattern(4096)},
			{"empty", []byte{}},
			{"name with spaces & 'quotes'.txt", []byte("hello\n")},
		} {
			if err := fsys.WriteFile(ctx, tc.path, tc.data); err != nil {
				t.Fatalf("Got(WriteFile(%q)) error %v; want none", tc.path, err)
			}
			got, err := fsys.ReadFile(ctx, tc.path)
			if err != nil {
				t.Fatalf("Got(ReadFile(%q)) error %v; want none", tc.path, err)
			}
			equalBytes(t, "ReadFile("+tc.path+")", got, tc.data)
			fi, err := fsys.Stat(ctx, tc.path)
			if err != nil || fi.Size() != int64(len(tc.data)) || !fi.Mode().IsRegular() {
				t.Errorf("Got(Stat(%q)) = %v, %v; want a regular file of %d bytes", tc.path, fi, err, len(tc.data))
			}
		}
		// Writing again truncates.
		if err := fsys.WriteFile(ctx, "exact.bin", []byte("short")); err != nil {
			t.Fatal(err)
		}
		got, _ := fsys.ReadFile(ctx, "exact.bin")
		equalBytes(t, "ReadFile(exact.bin) after rewrite", got, []byte("short"))
	})

	t.Run("StatMissing", func(t *testing.T) {
		fsys := as[workspace.FileSystem](t, newSandbox(t))
		_, err := fsys.Stat(ctx, "missing.txt")
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Got(Stat(missing.txt)) error %v; want fs.ErrNotExist", err)
		}
		if _, err := fsys.ReadFile(ctx, "missing.txt"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Got(ReadFile(missing.txt)) error %v; want fs.ErrNotExist", err)
		}
	})

	t.Run("RenameReplaces", func(t *testing.T) {
		fsys := as[workspace.FileSystem](t, newSandbox(t))
		mustWrite(t, fsys, "a.txt", []byte("new content"))
		mustWrite(t, fsys, "dir/b.txt", []byte("old"))
		if err := fsys.Rename(ctx, "a.txt", "dir/b.txt"); err != nil {
			t.Fatalf("Got(Rename) error %v; want none", err)
		}
		got, err := fsys.ReadFile(ctx, "dir/b.txt")
		if err != nil {
			t.Fatal(err)
		}
		equalBytes(t, "ReadFile(dir/b.txt)", got, []byte("new content"))
		if _, err := fsys.Stat(ctx, "a.txt"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Got(Stat(a.txt)) error %v after rename; want fs.ErrNotExist", err)
		}
	})

	t.Run("Remove", func(t *testing.T) {
		fsys := as[workspace.FileSystem](t, newSandbox(t))
		if err := fsys.Remove(ctx, "never-there"); err != nil {
			t.Errorf("Got(Remove(never-there)) error %v; want none", err)
		}
		mustWrite(t, fsys, "gone.txt", []byte("x"))
		if err := fsys.Remove(ctx, "gone.txt"); err != nil {
			t.Fatalf("Got(Remove(gone.txt)) error %v; want none", err)
		}
		if _, err := fsys.Stat(ctx, "gone.txt"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Got(Stat(gone.txt)) error %v after Remove; want fs.ErrNotExist", err)
		}
	})

	t.Run("ReadDirSorted", func(t *testing.T) {
		fsys := as[workspace.FileSystem](t, newSandbox(t))
		for _, name := range []string{"d/c", "d/a", "d/b/inner"} {
			mustWrite(t, fsys, name, []byte(name))
		}
		entries, err := fsys.ReadDir(ctx, "d")
		if err != nil {
			t.Fatalf("Got(ReadDir(d)) error %v; want none", err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := []string{"a", "b", "c"}; !slices.Equal(names, want) {
			t.Errorf("Got(ReadDir(d)) = %q; want %q", names, want)
		}
		if len(entries) == 3 && !entries[1].IsDir() {
			t.Errorf("Got(ReadDir(d)[1].IsDir()) = false; want true")
		}
	})

	t.Run("CommandsSeeFiles", func(t *testing.T) {
		sb := newSandbox(t)
		fsys := as[workspace.FileSystem](t, sb)
		r := as[workspace.CommandRunner](t, sb)
		data := pattern(10_000)
		mustWrite(t, fsys, "sub/shared.bin", data)
		res := mustRun(t, r, "cat sub/shared.bin")
		equalBytes(t, "cat sub/shared.bin", res.Stdout, data)
		mustRun(t, r, "printf 'from a command' > made.txt")
		got, err := fsys.ReadFile(ctx, "made.txt")
		if err != nil {
			t.Fatal(err)
		}
		equalBytes(t, "ReadFile(made.txt)", got, []byte("from a command"))
	})
}

func mustWrite(t *testing.T, fsys workspace.FileSystem, path string, data []byte) {
	t.Helper()
	if err := fsys.WriteFile(context.Background(), path, data); err != nil {
		t.Fatalf("Got(WriteFile(%q)) error %v; want none", path, err)
	}
}
