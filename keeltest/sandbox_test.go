package keeltest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
)

var (
	_ workspace.FileSystem  = (*keeltest.Sandbox)(nil)
	_ workspace.TreeRemover = (*keeltest.Sandbox)(nil)
	_ workspace.WorkDirer   = (*keeltest.Sandbox)(nil)
)

func TestSandboxCapabilities(t *testing.T) {
	var sb workspace.Sandbox = keeltest.NewSandbox("sb-1")
	if got := sb.ID(); got != "sb-1" {
		t.Errorf("Got(ID) = %q; want %q", got, "sb-1")
	}
	if got := sb.(workspace.WorkDirer).WorkDir(); got != "/home/user" {
		t.Errorf("Got(WorkDir) = %q; want %q", got, "/home/user")
	}
	if _, ok := sb.(workspace.CommandRunner); ok {
		t.Errorf("Got(CommandRunner) = true; want false: the sandbox cannot run commands")
	}
}

func TestSandboxPathEscapes(t *testing.T) {
	ctx := context.Background()
	sb := keeltest.NewSandbox("sb")
	ops := map[string]func(p string) error{
		"WriteFile":   func(p string) error { return sb.WriteFile(ctx, p, []byte("x")) },
		"ReadFile":    func(p string) error { _, err := sb.ReadFile(ctx, p); return err },
		"Stat":        func(p string) error { _, err := sb.Stat(ctx, p); return err },
		"Rename from": func(p string) error { return sb.Rename(ctx, p, "b") },
		"Rename to":   func(p string) error { return sb.Rename(ctx, "a", p) },
		"Remove":      func(p string) error { return sb.Remove(ctx, p) },
		"ReadDir":     func(p string) error { _, err := sb.ReadDir(ctx, p); return err },
		"RemoveAll":   func(p string) error { return sb.RemoveAll(ctx, p) },
	}
	if err := sb.WriteFile(ctx, "a", []byte("a")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/etc/passwd", "..", "../x", "a/../../x", "/home/user/a"} {
		for name, op := range ops {
			if err := op(p); !errors.Is(err, workspace.ErrPathEscapes) {
				t.Errorf("Got(%s(%q)) = %v; want ErrPathEscapes", name, p, err)
			}
		}
	}
	if files := sb.Files(); len(files) != 1 || string(files["a"]) != "a" {
		t.Errorf("Got(files) = %q; want only a", files)
	}
}

func TestSandboxFiles(t *testing.T) {
	ctx := context.Background()
	sb := keeltest.NewSandbox("sb")
	data := []byte("hello")
	if err := sb.WriteFile(ctx, "./dir/sub//a.txt", data); err != nil {
		t.Fatal(err)
	}
	data[0] = 'J' // The sandbox keeps its own copy.

	got, err := sb.ReadFile(ctx, "dir/sub/a.txt")
	if err != nil || string(got) != "hello" {
		t.Errorf("Got(ReadFile) = %q, %v; want %q", got, err, "hello")
	}
	got[0] = 'Y'
	if again, _ := sb.ReadFile(ctx, "dir/sub/a.txt"); string(again) != "hello" {
		t.Errorf("Got(ReadFile after changing a result) = %q; want %q", again, "hello")
	}

	info, err := sb.Stat(ctx, "dir/sub/a.txt")
	if err != nil || info.Size() != 5 || !info.Mode().IsRegular() || info.Name() != "a.txt" {
		t.Errorf("Got(Stat) = %v, %v; want a regular file a.txt of 5 bytes", info, err)
	}
	if info, err := sb.Stat(ctx, "dir/sub"); err != nil || !info.IsDir() {
		t.Errorf("Got(Stat(dir/sub)) = %v, %v; want a directory", info, err)
	}
	if _, err := sb.Stat(ctx, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(Stat(missing)) = %v; want fs.ErrNotExist", err)
	}
	if _, err := sb.ReadFile(ctx, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(ReadFile(missing)) = %v; want fs.ErrNotExist", err)
	}
	if err := sb.WriteFile(ctx, "dir/sub/a.txt/b", data); err == nil {
		t.Errorf("Got(WriteFile under a file) = nil; want an error")
	}
	if err := sb.WriteFile(ctx, "dir/sub", data); err == nil {
		t.Errorf("Got(WriteFile over a directory) = nil; want an error")
	}

	files := sb.Files()
	files["dir/sub/a.txt"][0] = 'X'
	if again := sb.Files(); len(again) != 1 || string(again["dir/sub/a.txt"]) != "hello" {
		t.Errorf("Got(Files after changing a result) = %q; want only dir/sub/a.txt = hello", again)
	}
}

func TestSandboxRenameRemoveReadDir(t *testing.T) {
	ctx := context.Background()
	sb := keeltest.NewSandbox("sb")
	for _, p := range []string{"d/b.part", "d/a", "d/e/f", "top"} {
		if err := sb.WriteFile(ctx, p, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sb.Rename(ctx, "d/b.part", "d/a"); err != nil {
		t.Fatalf("Got(Rename over a file) = %v; want nil", err)
	}
	if got, _ := sb.ReadFile(ctx, "d/a"); string(got) != "d/b.part" {
		t.Errorf("Got(d/a after rename) = %q; want %q", got, "d/b.part")
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"rename missing", sb.Rename(ctx, "nope", "d/x"), fs.ErrNotExist},
		{"rename into missing directory", sb.Rename(ctx, "top", "no/dir/x"), fs.ErrNotExist},
		{"rename a directory", sb.Rename(ctx, "d/e", "d/g"), fs.ErrInvalid},
		{"remove missing", sb.Remove(ctx, "nope"), nil},
		{"remove non-empty directory", sb.Remove(ctx, "d"), fs.ErrInvalid},
		{"readdir a file", func() error { _, err := sb.ReadDir(ctx, "top"); return err }(), fs.ErrInvalid},
		{"readdir missing", func() error { _, err := sb.ReadDir(ctx, "nope"); return err }(), fs.ErrNotExist},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) || (tt.want == nil) != (tt.err == nil) {
			t.Errorf("Got(%s) = %v; want %v", tt.name, tt.err, tt.want)
		}
	}

	entries, err := sb.ReadDir(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, fmt.Sprintf("%s dir=%v", e.Name(), e.IsDir()))
	}
	if want := []string{"a dir=false", "e dir=true"}; !slices.Equal(names, want) {
		t.Errorf("Got(ReadDir(d)) = %q; want %q", names, want)
	}
	if entries, _ := sb.ReadDir(ctx, "."); len(entries) != 2 || entries[0].Name() != "d" || entries[1].Name() != "top" {
		t.Errorf("Got(len(ReadDir(.))) = %d; want d and top", len(entries))
	}

	if err := sb.Remove(ctx, "d/e/f"); err != nil {
		t.Fatal(err)
	}
	if err := sb.Remove(ctx, "d/e"); err != nil {
		t.Errorf("Got(Remove(empty directory)) = %v; want nil", err)
	}
	if _, err := sb.Stat(ctx, "d/e"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(Stat(removed directory)) = %v; want fs.ErrNotExist", err)
	}
}

func TestSandboxRecordsWrites(t *testing.T) {
	ctx := context.Background()
	sb := keeltest.NewSandbox("sb")
	data := []byte("payload")
	if err := sb.WriteFile(ctx, "a", data); err != nil {
		t.Fatal(err)
	}
	diskFull := errors.New("disk full")
	sb.FailWrites(diskFull)
	if err := sb.WriteFile(ctx, "b", data); !errors.Is(err, diskFull) {
		t.Errorf("Got(WriteFile while failing) = %v; want %v", err, diskFull)
	}
	sb.FailWrites(nil)
	if err := sb.WriteFile(ctx, "../c", data); !errors.Is(err, workspace.ErrPathEscapes) {
		t.Errorf("Got(WriteFile(../c)) = %v; want ErrPathEscapes", err)
	}

	w := sb.Writes()
	if len(w) != 3 {
		t.Fatalf("Got(len(Writes)) = %d; want 3", len(w))
	}
	if w[0].Path != "a" || w[0].Len != 7 || w[0].Err != nil || &w[0].Data[0] != &data[0] {
		t.Errorf("Got(Writes[0]) = %+v; want a, 7 bytes, the caller's slice, no error", w[0])
	}
	if w[1].Path != "b" || !errors.Is(w[1].Err, diskFull) {
		t.Errorf("Got(Writes[1]) = %+v; want b failing with %v", w[1], diskFull)
	}
	if w[2].Path != "../c" || !errors.Is(w[2].Err, workspace.ErrPathEscapes) {
		t.Errorf("Got(Writes[2]) = %+v; want ../c failing with ErrPathEscapes", w[2])
	}
	if files := sb.Files(); len(files) != 1 {
		t.Errorf("Got(len(Files)) = %d; want 1: failed writes store nothing", len(files))
	}
}

func TestSandboxCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sb := keeltest.NewSandbox("sb")
	if err := sb.WriteFile(ctx, "a", []byte("a")); !errors.Is(err, context.Canceled) {
		t.Errorf("Got(WriteFile) = %v; want context.Canceled", err)
	}
	if n := len(sb.Files()); n != 0 {
		t.Errorf("Got(len(Files)) = %d; want 0", n)
	}
}

func TestSandboxConcurrent(t *testing.T) {
	ctx := context.Background()
	sb := keeltest.NewSandbox("sb")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			p := "d" + strconv.Itoa(i%2) + "/f" + strconv.Itoa(i)
			_ = sb.WriteFile(ctx, p, []byte(p))
			_, _ = sb.ReadFile(ctx, p)
			_, _ = sb.ReadDir(ctx, "d0")
			_ = sb.Rename(ctx, p, p+".done")
			_ = sb.Writes()
		})
	}
	wg.Wait()
	files := sb.Files()
	if len(files) != 8 || len(sb.Writes()) != 8 {
		t.Errorf("Got(files, writes) = %d, %d; want 8, 8", len(files), len(sb.Writes()))
	}
	for p, b := range files {
		if p != string(b)+".done" {
			t.Errorf("Got(%s) = %q; want %q", p, b, p[:len(p)-len(".done")])
		}
	}
}

func ExampleNewSandbox() {
	ctx := context.Background()
	sb := keeltest.NewSandbox("test")

	u, _ := workspace.Upload(ctx, sb, "thread-1", "", workspace.File{Name: "a.txt", Data: []byte("hi")})
	fmt.Println(u.Path)
	for _, w := range sb.Writes() {
		fmt.Println("wrote", w.Len, "bytes")
	}

	sb.FailWrites(errors.New("disk full"))
	_, err := workspace.Upload(ctx, sb, "thread-2", "", workspace.File{Name: "b.txt", Data: []byte("ho")})
	fmt.Println(err != nil, len(sb.Files()))
	// Output:
	// /home/user/uploads/thread-1/8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4.txt
	// wrote 2 bytes
	// true 1
}
