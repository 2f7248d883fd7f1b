package workspace_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
)

// randomBytes returns n reproducible bytes covering every byte value.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{1, 2, 3}).Read(b) // Never fails.
	return b
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var partRe = regexp.MustCompile(`^(.+)\.[0-9a-f]{8}\.part$`)

func TestUploadFileSystem(t *testing.T) {
	data := []byte("id,name\n1,Ada\n")
	tests := []struct {
		name             string
		thread, resource string
		file             workspace.File
		wantRel          string
	}{
		{
			name:    "named",
			thread:  "thread-1",
			file:    workspace.File{Name: "leads.csv", MediaType: "Text/CSV; charset=utf-8", Data: data},
			wantRel: "uploads/thread-1/" + digest(data) + ".csv",
		},
		{
			name:     "unnamed takes its extension from its type",
			resource: "user-7",
			file:     workspace.File{MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Data: data},
			wantRel:  "uploads/user-7/" + digest(data) + ".xlsx",
		},
		{
			name:    "no name, no type",
			file:    workspace.File{Data: data},
			wantRel: "uploads/shared/" + digest(data),
		},
		{
			name:    "hostile thread and name",
			thread:  "../../etc; rm -rf /",
			file:    workspace.File{Name: "../../\x1b[31mx.$(id)", MediaType: "application/x-sh", Data: data},
			wantRel: "uploads/etc_rm_-rf/" + digest(data) + ".id",
		},
		{
			name:    "empty file",
			thread:  "t",
			file:    workspace.File{Name: "empty.txt", MediaType: "text/plain", Data: []byte{}},
			wantRel: "uploads/t/" + digest(nil) + ".txt",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := keeltest.NewSandbox("sb")
			u, err := workspace.Upload(context.Background(), sb, tt.thread, tt.resource, tt.file)
			if err != nil {
				t.Fatalf("Got(Upload error) = %v; want none", err)
			}
			want := workspace.Uploaded{
				Path:    "/home/user/" + tt.wantRel,
				RelPath: tt.wantRel,
				Size:    int64(len(tt.file.Data)),
				SHA256:  digest(tt.file.Data),
				Written: true,
			}
			if u != want {
				t.Errorf("Got(Upload) = %+v; want %+v", u, want)
			}
			files := sb.Files()
			if len(files) != 1 || !bytes.Equal(files[tt.wantRel], tt.file.Data) {
				t.Errorf("Got(files) = %q; want only %s with the file's bytes", files, tt.wantRel)
			}
			writes := sb.Writes()
			if len(writes) != 1 {
				t.Fatalf("Got(len(writes)) = %d; want 1", len(writes))
			}
			if m := partRe.FindStringSubmatch(writes[0].Path); m == nil || m[1] != tt.wantRel {
				t.Errorf("Got(write path) = %q; want %s.<8 hex>.part", writes[0].Path, tt.wantRel)
			}
		})
	}
}

func TestUploadPassesBytesWithoutCopy(t *testing.T) {
	data := randomBytes(4096)
	sb := keeltest.NewSandbox("sb")
	if _, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "a.bin", Data: data}); err != nil {
		t.Fatal(err)
	}
	w := sb.Writes()
	if len(w) != 1 || w[0].Len != len(data) || &w[0].Data[0] != &data[0] {
		t.Errorf("Got(writes) = %d writes; want one write of the caller's own slice", len(w))
	}
}

func TestUploadPathWithoutWorkDir(t *testing.T) {
	// Embedding only the FileSystem interface hides WorkDir.
	sb := struct{ workspace.FileSystem }{keeltest.NewSandbox("sb")}
	u, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "a.txt", Data: []byte("a")})
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != u.RelPath {
		t.Errorf("Got(Path) = %q; want the relative path %q", u.Path, u.RelPath)
	}
}

func TestUploadSizeLimit(t *testing.T) {
	big := make([]byte, workspace.MaxUploadSize+1)
	sb := keeltest.NewSandbox("sb")
	u, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "big.zip", MediaType: "application/zip", Data: big})
	var tooLarge *workspace.FileTooLargeError
	if !errors.As(err, &tooLarge) {
		t.Fatalf("Got(Upload) = %v, %v; want a *FileTooLargeError", u, err)
	}
	if want := (workspace.FileTooLargeError{Size: workspace.MaxUploadSize + 1, Limit: workspace.MaxUploadSize}); *tooLarge != want {
		t.Errorf("Got(error) = %+v; want %+v", *tooLarge, want)
	}
	if want := "workspace: upload: file is 10485761 bytes, over the 10485760 byte limit"; err.Error() != want {
		t.Errorf("Got(error) = %q; want %q", err, want)
	}
	if n := len(sb.Writes()); n != 0 {
		t.Errorf("Got(len(writes)) = %d; want 0", n)
	}

	t.Run("exactly the limit", func(t *testing.T) {
		sb := keeltest.NewSandbox("sb")
		u, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "max.bin", Data: big[:workspace.MaxUploadSize]})
		if err != nil {
			t.Fatalf("Got(Upload error) = %v; want none", err)
		}
		if got := len(sb.Files()[u.RelPath]); got != workspace.MaxUploadSize {
			t.Errorf("Got(len(file)) = %d; want %d", got, workspace.MaxUploadSize)
		}
	})
}

func TestUploadIsIdempotent(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	f := workspace.File{Name: "a.txt", MediaType: "text/plain", Data: []byte("hello")}
	first, err := workspace.Upload(context.Background(), sb, "t", "", f)
	if err != nil {
		t.Fatal(err)
	}
	second, err := workspace.Upload(context.Background(), sb, "t", "", f)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Written || second.Written {
		t.Errorf("Got(Written) = %v, %v; want true, false", first.Written, second.Written)
	}
	wantSecond := first
	wantSecond.Written = false
	if second != wantSecond {
		t.Errorf("Got(second upload) = %+v; want %+v", second, wantSecond)
	}
	if n := len(sb.Writes()); n != 1 {
		t.Errorf("Got(len(writes)) = %d; want 1", n)
	}
}

func TestUploadReplacesFileOfWrongSize(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	data := []byte("the real content")
	rel := "uploads/t/" + digest(data) + ".txt"
	if err := sb.WriteFile(context.Background(), rel, []byte("edited")); err != nil {
		t.Fatal(err)
	}
	u, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "a.txt", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.Files()[rel]; !u.Written || !bytes.Equal(got, data) {
		t.Errorf("Got(Written, content) = %v, %q; want true, %q", u.Written, got, data)
	}
}

// flakyFS fails one operation of a working FileSystem, after doing part of
// it for writes, as a full disk would.
type flakyFS struct {
	*keeltest.Sandbox
	failWriteHalfway bool
	failRename       bool
	failStat         bool
}

var errFlaky = errors.New("disk full")

func (f *flakyFS) WriteFile(ctx context.Context, name string, data []byte) error {
	if f.failWriteHalfway {
		if err := f.Sandbox.WriteFile(ctx, name, data[:len(data)/2]); err != nil {
			return err
		}
		return errFlaky
	}
	return f.Sandbox.WriteFile(ctx, name, data)
}

func (f *flakyFS) Rename(ctx context.Context, oldname, newname string) error {
	if f.failRename {
		return errFlaky
	}
	return f.Sandbox.Rename(ctx, oldname, newname)
}

func (f *flakyFS) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if f.failStat {
		return nil, errFlaky
	}
	return f.Sandbox.Stat(ctx, name)
}

func TestUploadFailureLeavesNothing(t *testing.T) {
	injected := keeltest.NewSandbox("sb")
	injected.FailWrites(errFlaky)
	tests := []struct {
		name string
		sb   interface {
			workspace.FileSystem
			Files() map[string][]byte
		}
	}{
		{"write fails", injected},
		{"write fails halfway", &flakyFS{Sandbox: keeltest.NewSandbox("sb"), failWriteHalfway: true}},
		{"rename fails", &flakyFS{Sandbox: keeltest.NewSandbox("sb"), failRename: true}},
		{"stat fails", &flakyFS{Sandbox: keeltest.NewSandbox("sb"), failStat: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := workspace.Upload(context.Background(), tt.sb, "t", "", workspace.File{Name: "a.bin", Data: randomBytes(1000)})
			if !errors.Is(err, errFlaky) {
				t.Errorf("Got(Upload) = %v, %v; want an error wrapping %v", u, err, errFlaky)
			}
			if !strings.HasPrefix(err.Error(), "workspace: upload: ") {
				t.Errorf("Got(error) = %q; want the prefix %q", err, "workspace: upload: ")
			}
			if files := tt.sb.Files(); len(files) != 0 {
				t.Errorf("Got(files) = %d files; want none", len(files))
			}
		})
	}
}

func TestUploadCancelled(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := workspace.Upload(ctx, sb, "t", "", workspace.File{Name: "a.txt", Data: []byte("a")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Got(Upload error) = %v; want context.Canceled", err)
	}
	if n := len(sb.Writes()); n != 0 {
		t.Errorf("Got(len(writes)) = %d; want 0", n)
	}
}

// cancelAfterWrite cancels the upload's context once the part file is
// written, before the rename.
type cancelAfterWrite struct {
	*keeltest.Sandbox
	cancel context.CancelFunc
}

func (c *cancelAfterWrite) WriteFile(ctx context.Context, name string, data []byte) error {
	err := c.Sandbox.WriteFile(ctx, name, data)
	c.cancel()
	return err
}

func TestUploadCancelledMidwayRemovesPart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb := &cancelAfterWrite{Sandbox: keeltest.NewSandbox("sb"), cancel: cancel}
	_, err := workspace.Upload(ctx, sb, "t", "", workspace.File{Name: "a.txt", Data: []byte("a")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Got(Upload error) = %v; want context.Canceled", err)
	}
	if files := sb.Files(); len(files) != 0 {
		t.Errorf("Got(files) = %q; want none", files)
	}
}

func TestUploadWithoutCapability(t *testing.T) {
	tests := []struct {
		name string
		sb   workspace.Sandbox
		want error
	}{
		{"nil", nil, workspace.ErrNoSandbox},
		{"ID only", struct{ workspace.Sandbox }{keeltest.NewSandbox("sb")}, workspace.ErrNoWriteCapability},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := workspace.Upload(context.Background(), tt.sb, "t", "", workspace.File{Data: []byte("a")})
			if !errors.Is(err, tt.want) {
				t.Errorf("Got(Upload error) = %v; want %v", err, tt.want)
			}
		})
	}
}

func TestUploadConcurrentSameFile(t *testing.T) {
	data := randomBytes(300_000)
	f := workspace.File{Name: "same.bin", Data: data}
	mem := keeltest.NewSandbox("sb")
	dir := newDirFS(t)
	for _, sb := range []workspace.FileSystem{mem, dir} {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { _, errs[i] = workspace.Upload(context.Background(), sb, "t", "", f) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("Got(Upload errors in %T) = %v; want none", sb, err)
		}
	}
	rel := "uploads/t/" + digest(data) + ".bin"
	if files := mem.Files(); len(files) != 1 || !bytes.Equal(files[rel], data) {
		t.Errorf("Got(in-memory files) = %d files; want only %s, intact", len(files), rel)
	}
	if got := treeFiles(t, dir.Dir()); len(got) != 1 || got[0] != rel {
		t.Errorf("Got(directory files) = %q; want only %s", got, rel)
	}
	if got, err := dir.ReadFile(context.Background(), rel); err != nil || !bytes.Equal(got, data) {
		t.Errorf("Got(directory file) = %d bytes, %v; want the %d bytes uploaded", len(got), err, len(data))
	}
}
