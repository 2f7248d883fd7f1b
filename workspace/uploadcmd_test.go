package workspace_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel/workspace"
)

// hostileThread is full of shell metacharacters; were any of it to reach
// the shell unquoted, files named pwned* would appear.
const hostileThread = "t1; touch ../pwned1 && $(touch ../pwned2) `touch ../pwned3` | tee ../pwned4 > ../pwned5 '\"\\"

var chunkRe = regexp.MustCompile(`printf '%s' '([A-Za-z0-9+/=]*)' \| base64 -d`)

func TestUploadCommandsOnly(t *testing.T) {
	sb := newCmdSandbox(t)
	data := randomBytes(250 * 1024)
	u, err := workspace.Upload(context.Background(), sb, hostileThread, "", workspace.File{
		Name: "report; rm -rf ~.PDF", MediaType: "application/pdf", Data: data,
	})
	if err != nil {
		t.Fatalf("Got(Upload error) = %v; want none", err)
	}
	// Runs of dots became "_" before runs of "_" collapsed: no ".." survives.
	wantRel := "uploads/t1_touch_pwned1_touch_pwned2_touch_pwned3_tee_pwned4_pwned5/" + digest(data) + ".pdf"
	if u.RelPath != wantRel || u.Path != sb.dir+"/"+wantRel || !u.Written {
		t.Errorf("Got(Upload) = %+v; want RelPath %s under %s, written", u, wantRel, sb.dir)
	}

	got, err := os.ReadFile(filepath.Join(sb.dir, wantRel))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Got(file) = %d bytes, %v; want the %d bytes uploaded, byte-exact", len(got), err, len(data))
	}
	// Nothing else anywhere, not even beside the sandbox's directory.
	if files := treeFiles(t, filepath.Dir(sb.dir)); len(files) != 1 || files[0] != "home/"+wantRel {
		t.Errorf("Got(files) = %q; want only home/%s", files, wantRel)
	}

	writes := sb.writeLines()
	if len(writes) != 4 {
		t.Errorf("Got(len(chunk commands)) = %d; want 4 for %d bytes", len(writes), len(data))
	}
	for i, line := range writes {
		m := chunkRe.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("Got(chunk command %d) = %.120q; want printf '%%s' '<base64>' | base64 -d", i, line)
		}
		if len(m[1]) > 96_000 {
			t.Errorf("Got(len(chunk %d)) = %d; want at most 96000", i, len(m[1]))
		}
		// Linux refuses one argument over 128 KiB, and sh -c gets the line as one.
		if len(line) >= 128<<10 {
			t.Errorf("Got(len(command %d)) = %d; want under %d", i, len(line), 128<<10)
		}
	}
}

func TestUploadCommandsEdgeSizes(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		wantChunks int
	}{
		{"empty", 0, 0},
		{"one byte", 1, 1},
		{"exactly one chunk", 72_000, 1},
		{"one byte over a chunk", 72_001, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newCmdSandbox(t)
			data := randomBytes(tt.size)
			u, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "a.bin", Data: data})
			if err != nil {
				t.Fatalf("Got(Upload error) = %v; want none", err)
			}
			got, err := os.ReadFile(filepath.Join(sb.dir, u.RelPath))
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("Got(file) = %d bytes, %v; want %d bytes", len(got), err, len(data))
			}
			if n := len(sb.writeLines()); n != tt.wantChunks {
				t.Errorf("Got(len(chunk commands)) = %d; want %d", n, tt.wantChunks)
			}
		})
	}
}

func TestUploadCommandsIdempotent(t *testing.T) {
	sb := newCmdSandbox(t)
	f := workspace.File{Name: "a.csv", Data: randomBytes(1000)}
	first, err := workspace.Upload(context.Background(), sb, "t", "", f)
	if err != nil {
		t.Fatal(err)
	}
	before := len(sb.Lines())
	second, err := workspace.Upload(context.Background(), sb, "t", "", f)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Written || second.Written {
		t.Errorf("Got(Written) = %v, %v; want true, false", first.Written, second.Written)
	}
	if lines := sb.Lines()[before:]; len(lines) != 1 {
		t.Errorf("Got(commands of the second upload) = %q; want only the existence check", lines)
	}
}

func TestUploadCommandsReplacesFileOfWrongSize(t *testing.T) {
	sb := newCmdSandbox(t)
	data := []byte("the real content")
	rel := "uploads/t/" + digest(data) + ".txt"
	if err := os.MkdirAll(filepath.Join(sb.dir, "uploads/t"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sb.dir, rel), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "a.txt", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(sb.dir, rel)); !u.Written || !bytes.Equal(got, data) {
		t.Errorf("Got(Written, content) = %v, %q; want true, %q", u.Written, got, data)
	}
}

func TestUploadCommandsFailureLeavesNothing(t *testing.T) {
	tests := []struct {
		name   string
		failOn func(line string) bool
	}{
		{"second chunk fails", func() func(string) bool {
			var mu sync.Mutex
			n := 0
			return func(line string) bool {
				mu.Lock()
				defer mu.Unlock()
				if strings.Contains(line, "base64 -d") {
					n++
				}
				return n == 2 && strings.Contains(line, "base64 -d")
			}
		}()},
		{"last command fails", func(line string) bool { return strings.Contains(line, "mv -f") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newCmdSandbox(t)
			sb.failOn = tt.failOn
			_, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "a.bin", Data: randomBytes(200_000)})
			if err == nil || !strings.Contains(err.Error(), "No space left on device") {
				t.Errorf("Got(Upload error) = %v; want one quoting the command's error output", err)
			}
			if files := treeFiles(t, sb.dir); len(files) != 0 {
				t.Errorf("Got(files) = %q; want none", files)
			}
		})
	}
}

func TestUploadCommandsCancelledMidway(t *testing.T) {
	sb := newCmdSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	chunks := 0
	sb.before = func(line string) {
		if strings.Contains(line, "base64 -d") {
			chunks++
			if chunks == 2 {
				once.Do(cancel)
			}
		}
	}
	_, err := workspace.Upload(ctx, sb, "t", "", workspace.File{Name: "a.bin", Data: randomBytes(200_000)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Got(Upload error) = %v; want context.Canceled", err)
	}
	if files := treeFiles(t, sb.dir); len(files) != 0 {
		t.Errorf("Got(files) = %q; want none: the part file is removed after cancellation", files)
	}
}

func TestUploadCommandsConcurrentSameFile(t *testing.T) {
	sb := newCmdSandbox(t)
	data := randomBytes(150_000)
	f := workspace.File{Name: "same.bin", Data: data}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { _, errs[i] = workspace.Upload(context.Background(), sb, "t", "", f) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("Got(Upload errors) = %v; want none", err)
	}
	rel := "uploads/t/" + digest(data) + ".bin"
	if files := treeFiles(t, sb.dir); len(files) != 1 || files[0] != rel {
		t.Errorf("Got(files) = %q; want only %s", files, rel)
	}
	if got, err := os.ReadFile(filepath.Join(sb.dir, rel)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("Got(file) = %d bytes, %v; want the %d bytes uploaded", len(got), err, len(data))
	}
}
