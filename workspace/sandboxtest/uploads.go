package sandboxtest

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel/workspace"
)

func testUploads(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	t.Run("ConcurrentSameFile", func(t *testing.T) {
		sb := newSandbox(t)
		_, canWrite := sb.(workspace.FileSystem)
		_, canRun := sb.(workspace.CommandRunner)
		if !canWrite && !canRun {
			t.Skipf("sandbox %T can neither write files nor run commands", sb)
		}
		concurrentUploads(t, sb, sb)
	})

	t.Run("ConcurrentSameFileCommandOnly", func(t *testing.T) {
		sb := newSandbox(t)
		as[workspace.CommandRunner](t, sb)
		concurrentUploads(t, CommandOnly(sb), sb)
	})

	t.Run("PathAsCommandsSeeIt", func(t *testing.T) {
		sb := newSandbox(t)
		r := as[workspace.CommandRunner](t, sb)
		as[workspace.WorkDirer](t, sb)
		data := pattern(12_345)
		u, err := workspace.Upload(context.Background(), sb, "thread 1; rm -rf /", "", workspace.File{
			Name: "leads.xlsx", MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Data: data,
		})
		if err != nil {
			t.Fatalf("Got(Upload) error %v; want none", err)
		}
		res := mustRun(t, r, "wc -c < "+workspace.ShellQuote(u.Path))
		if got := strings.TrimSpace(string(res.Stdout)); got != strconv.Itoa(len(data)) {
			t.Errorf("Got(wc -c < %s) = %q; want %d", u.Path, got, len(data))
		}
	})
}

// concurrentUploads uploads one file from several goroutines through up
// and checks, through check, that one intact file is left and no part
// file.
func concurrentUploads(t *testing.T, up, check workspace.Sandbox) {
	t.Helper()
	data := pattern(140_000) // two command chunks of base64
	f := workspace.File{Name: "report.csv", MediaType: "text/csv", Data: data}
	const n = 3
	paths := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			u, err := workspace.Upload(context.Background(), up, "thread-1", "", f)
			if err != nil {
				t.Errorf("Got(Upload #%d) error %v; want none", i, err)
				return
			}
			paths[i] = u.RelPath
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, p := range paths {
		if p != paths[0] {
			t.Fatalf("Got(Upload #%d path) = %q; want %q like the first", i, p, paths[0])
		}
	}
	dir := paths[0][:strings.LastIndexByte(paths[0], '/')]
	want := paths[0][len(dir)+1:]
	names := listIn(t, check, dir)
	if len(names) != 1 || names[0] != want {
		t.Errorf("Got(files in %s) = %q; want only %q", dir, names, want)
	}
	if got := digestIn(t, check, paths[0]); got != sha256Hex(data) {
		t.Errorf("Got(sha256 of %s) = %s; want %s", paths[0], got, sha256Hex(data))
	}
}
