package server_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/workspace/localsandbox"
)

// maxListing is the most entries a sandbox listing walks (the server's
// maxSandboxListing).
const maxListing = 10000

// A sandbox listing walks up to 10,000 entries (files and directories):
// a tree of exactly that many is listed whole, one entry more is cut at
// the limit and says so.
func TestSandboxListingIsCutAtTheLimit(t *testing.T) {
	e, root := sandboxEnv(t, localsandbox.PerResource, nil)
	e.sendFile("t-1", "leads.xlsx", []byte("PK"))
	dirs, _ := filepath.Glob(filepath.Join(root, "resource-r-*"))
	if len(dirs) != 1 {
		t.Fatalf("Got(sandboxes of r) = %v; want one", dirs)
	}
	sandbox := dirs[0]
	entries, files := 0, 0
	err := filepath.WalkDir(sandbox, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == sandbox {
			return err
		}
		entries++
		if d.Type().IsRegular() {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	add := func(n int) {
		for i := 0; i < n; i++ {
			name := filepath.Join(sandbox, fmt.Sprintf("f%05d-%d.txt", entries, i))
			if err := os.WriteFile(name, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		entries, files = entries+n, files+n
	}
	list := func() (int, bool) {
		t.Helper()
		status, body := e.do("GET", "/api/agents/support/sandbox/files?resourceId=r", nil)
		wantStatus(t, "list", status, body, 200)
		var l struct {
			Files     []json.RawMessage
			Truncated bool
		}
		if err := json.Unmarshal(body, &l); err != nil {
			t.Fatal(err)
		}
		return len(l.Files), l.Truncated
	}

	add(maxListing - entries)
	if n, cut := list(); n != files || cut {
		t.Errorf("Got(listing of %d entries) = %d files, truncated %v; want all %d, not truncated", entries, n, cut, files)
	}
	add(1)
	// The listing walks the tree breadth first: the entry left out is the
	// deepest, the upload, a file.
	if n, cut := list(); n != files-1 || !cut {
		t.Errorf("Got(listing of %d entries) = %d files, truncated %v; want %d, truncated", entries, n, cut, files-1)
	}
}
