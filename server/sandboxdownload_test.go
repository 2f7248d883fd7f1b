package server_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/localsandbox"
	"golang.org/x/sys/unix"
)

// A sandbox file is sent from the file the route opened: ranges work
// (it seeks), and what is not a regular file, a FIFO a command made
// above all, is refused at once rather than waited on.
func TestSandboxDownloadStreamsFromTheOpenFile(t *testing.T) {
	e, root := sandboxEnv(t, localsandbox.PerResource, nil)
	e.sendFile("t-1", "leads.xlsx", []byte("PK0123456789"))
	dirs, _ := filepath.Glob(filepath.Join(root, "resource-r-*"))
	if len(dirs) != 1 {
		t.Fatalf("Got(sandboxes of r) = %v; want one", dirs)
	}
	if err := os.WriteFile(filepath.Join(dirs[0], "notes.txt"), []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dirs[0], "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes.txt", filepath.Join(dirs[0], "link")); err != nil {
		t.Fatal(err)
	}

	resp := e.send("GET", "/api/agents/support/sandbox/files/notes.txt?resourceId=r", nil, "Range", "bytes=2-5")
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || string(got) != "2345" || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("Got(range 2-5) = %d %q %v; want 206 \"2345\" as an attachment", resp.StatusCode, got, resp.Header)
	}
	for _, p := range []string{"pipe", "link"} {
		start := time.Now()
		status, body := e.do("GET", "/api/agents/support/sandbox/files/"+p+"?resourceId=r", nil)
		if status != 400 || !strings.Contains(string(body), "not a regular file") || time.Since(start) > 10*time.Second {
			t.Errorf("Got(download %s) = %d %s after %v; want 400 not a regular file, at once", p, status, body, time.Since(start))
		}
	}
}
