package sandboxtest

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
)

// testSpecialFiles checks what a command can leave for keel to trip on:
// a FIFO, which opened for reading waits for a writer forever (and holds
// an OS thread while it does), a directory or a link where a file is
// expected, and a sparse file, which costs no disk and reads as any
// number of zeros.
func testSpecialFiles(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	ctx := context.Background()

	t.Run("FIFONeverBlocks", func(t *testing.T) {
		sb := newSandbox(t)
		fsys := as[workspace.FileSystem](t, sb)
		mustRun(t, as[workspace.CommandRunner](t, sb), "mkfifo pipe && mkdir dir")
		within := func(what string, fn func() error) error {
			t.Helper()
			done := make(chan error, 1)
			go func() { done <- fn() }()
			select {
			case err := <-done:
				return err
			case <-time.After(10 * time.Second):
				t.Fatalf("Got(%s) still blocked after 10 s; want an answer at once", what)
				return nil
			}
		}
		err := within("ReadFile(pipe)", func() error { _, err := fsys.ReadFile(ctx, "pipe"); return err })
		if !errors.Is(err, workspace.ErrNotRegularFile) {
			t.Errorf("Got(ReadFile(pipe)) error %v; want workspace.ErrNotRegularFile", err)
		}
		if err := within("ReadDir(pipe)", func() error { _, err := fsys.ReadDir(ctx, "pipe"); return err }); err == nil {
			t.Errorf("Got(ReadDir(pipe)) no error; want the FIFO refused")
		}
		if err := within("WriteFile(pipe)", func() error { return fsys.WriteFile(ctx, "pipe", []byte("x")) }); err == nil {
			t.Errorf("Got(WriteFile(pipe)) no error; want the FIFO refused")
		}
		op := as[workspace.FileOpener](t, sb)
		for _, p := range []string{"pipe", "dir"} {
			err := within("OpenFile("+p+")", func() error {
				f, err := op.OpenFile(ctx, p)
				if err == nil {
					f.Close()
				}
				return err
			})
			if !errors.Is(err, workspace.ErrNotRegularFile) {
				t.Errorf("Got(OpenFile(%s)) error %v; want workspace.ErrNotRegularFile", p, err)
			}
		}
	})

	t.Run("OpenFileFollowsNoLink", func(t *testing.T) {
		sb := newSandbox(t)
		op := as[workspace.FileOpener](t, sb)
		mustRun(t, as[workspace.CommandRunner](t, sb), "printf inside > target.txt && ln -s target.txt link && ln -s /etc/passwd passwd && "+
			"mkdir d && printf deep > d/f && ln -s d dlink")
		for _, p := range []string{"link", "passwd", "dlink/f"} {
			f, err := op.OpenFile(ctx, p)
			if err == nil {
				f.Close()
				t.Errorf("Got(OpenFile(%s)) a file; want a link refused", p)
				continue
			}
			if !errors.Is(err, workspace.ErrNotRegularFile) && !errors.Is(err, workspace.ErrPathEscapes) {
				t.Errorf("Got(OpenFile(%s)) error %v; want workspace.ErrNotRegularFile or ErrPathEscapes", p, err)
			}
		}
		f, err := op.OpenFile(ctx, "d/f")
		if err != nil {
			t.Fatalf("Got(OpenFile(d/f)) error %v; want the file", err)
		}
		defer f.Close()
		got, _ := io.ReadAll(f)
		fi, err := f.Stat()
		if string(got) != "deep" || err != nil || fi.Size() != 4 || !fi.Mode().IsRegular() {
			t.Errorf("Got(OpenFile(d/f)) = %q, %v, %v; want \"deep\", a regular file of 4 bytes", got, fi, err)
		}
	})

	t.Run("SparseFileReadInPart", func(t *testing.T) {
		sb := newSandbox(t)
		op := as[workspace.FileOpener](t, sb)
		const size = 1 << 30
		mustRun(t, as[workspace.CommandRunner](t, sb), "truncate -s 1G sparse")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f, err := op.OpenFile(ctx, "sparse")
		if err != nil {
			t.Fatalf("Got(OpenFile(sparse)) error %v; want the file", err)
		}
		fi, err := f.Stat()
		head := make([]byte, 16)
		_, rerr := io.ReadFull(f, head)
		f.Close()
		runtime.ReadMemStats(&after)
		if err != nil || fi.Size() != size || rerr != nil || string(head) != string(make([]byte, 16)) {
			t.Errorf("Got(OpenFile(sparse)) size %v (%v), first bytes %q (%v); want %d bytes of zeros", fi, err, head, rerr, size)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("Got(%d MiB allocated) to read 16 bytes of a 1 GiB sparse file; want at most 16 MiB", grew>>20)
		}
	})
}
