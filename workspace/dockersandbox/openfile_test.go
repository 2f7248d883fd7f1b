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

// TestOpenFile: a file is streamed with its size; a named pipe and a
// directory are refused without being read, by OpenFile and ReadFile
// alike; OpenFile follows no link (ReadFile follows one that stays
// inside), and a link out of the sandbox is an escape.
func TestOpenFile(t *testing.T) {
	ctx := context.Background()
	sb := newSandbox(t, dockersandbox.Options{})
	data := bytes.Repeat([]byte{0, 1, 2, 0xff, '\n'}, 300_000)
	if err := sb.WriteFile(ctx, "d/big.bin", data); err != nil {
		t.Fatal(err)
	}
	mustRun(t, sb, "mkfifo pipe && ln -s d/big.bin link && ln -s d dlink && ln -s /etc/passwd out")
	f, err := sb.OpenFile(ctx, "d/big.bin")
	if err != nil {
		t.Fatalf("Got(OpenFile(d/big.bin)) error %v; want the file", err)
	}
	fi, _ := f.Stat()
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || !bytes.Equal(got, data) || fi.Size() != int64(len(data)) || fi.Name() != "big.bin" {
		t.Errorf("Got(OpenFile read) = %d bytes, %v, stat %v; want the %d bytes written", len(got), err, fi, len(data))
	}
	if got, err := sb.ReadFile(ctx, "link"); err != nil || !bytes.Equal(got, data) {
		t.Errorf("Got(ReadFile(link)) = %d bytes, %v; want the file the link names", len(got), err)
	}
	for _, p := range []string{"pipe", "d", "link", "dlink/big.bin"} {
		if _, err := sb.OpenFile(ctx, p); !errors.Is(err, workspace.ErrNotRegularFile) {
			t.Errorf("Got(OpenFile(%s)) error %v; want workspace.ErrNotRegularFile", p, err)
		}
	}
	for _, p := range []string{"pipe", "d"} {
		if _, err := sb.ReadFile(ctx, p); !errors.Is(err, workspace.ErrNotRegularFile) {
			t.Errorf("Got(ReadFile(%s)) error %v; want workspace.ErrNotRegularFile", p, err)
		}
	}
	if err := sb.WriteFile(ctx, "pipe", []byte("x")); !errors.Is(err, workspace.ErrNotRegularFile) {
		t.Errorf("Got(WriteFile(pipe)) error %v; want workspace.ErrNotRegularFile, the FIFO kept", err)
	}
	if _, err := sb.OpenFile(ctx, "out"); !errors.Is(err, workspace.ErrPathEscapes) {
		t.Errorf("Got(OpenFile(out)) error %v; want workspace.ErrPathEscapes", err)
	}
}
