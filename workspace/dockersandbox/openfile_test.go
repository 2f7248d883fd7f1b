package dockersandbox_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
)

// TestOpenFile: a file is streamed with its size; a named pipe, a
// directory and a link out of the sandbox are refused without being read;
// ReadFile refuses them alike.
func TestOpenFile(t *testing.T) {
	ctx := context.Background()
	sb := newSandbox(t, dockersandbox.Options{})
	data := bytes.Repeat([]byte{0, 1, 2, 0xff, '\n'}, 300_000)
	if err := sb.WriteFile(ctx, "d/big.bin", data); err != nil {
		t.Fatal(err)
	}
	mustRun(t, sb, "mkfifo pipe && ln -s d/big.bin link && ln -s /etc/passwd out")
	f, err := sb.OpenFile(ctx, "link")
	if err != nil {
		t.Fatalf("Got(OpenFile(link)) error %v; want the file it names", err)
	}
	fi, _ := f.Stat()
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || !bytes.Equal(got, data) || fi.Size() != int64(len(data)) || fi.Name() != "link" {
		t.Errorf("Got(OpenFile read) = %d bytes, %v, stat %v; want the %d bytes written", len(got), err, fi, len(data))
	}
	for _, p := range []string{"pipe", "d"} {
		if _, err := sb.OpenFile(ctx, p); !errors.Is(err, dockersandbox.ErrNotRegularFile) {
			t.Errorf("Got(OpenFile(%s)) error %v; want ErrNotRegularFile", p, err)
		}
		if _, err := sb.ReadFile(ctx, p); !errors.Is(err, dockersandbox.ErrNotRegularFile) {
			t.Errorf("Got(ReadFile(%s)) error %v; want ErrNotRegularFile", p, err)
		}
	}
	if _, err := sb.OpenFile(ctx, "out"); !errors.Is(err, workspace.ErrPathEscapes) {
		t.Errorf("Got(OpenFile(out)) error %v; want workspace.ErrPathEscapes", err)
	}
}
