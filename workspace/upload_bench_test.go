package workspace_test

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/workspace"
)

// BenchmarkUpload10MiB uploads a 10 MiB file into a directory-backed
// FileSystem. The file is removed after each upload so that every one
// writes, as [BenchmarkSHA256AndWrite10MiB] does.
func BenchmarkUpload10MiB(b *testing.B) {
	sb := newDirFS(b)
	f := workspace.File{Name: "big.bin", MediaType: "application/octet-stream", Data: randomBytes(workspace.MaxUploadSize)}
	ctx := context.Background()
	b.SetBytes(int64(len(f.Data)))
	b.ReportAllocs()
	for b.Loop() {
		u, err := workspace.Upload(ctx, sb, "thread-1", "", f)
		if err != nil {
			b.Fatal(err)
		}
		if !u.Written {
			b.Fatal("Got(Written) = false; want true")
		}
		if err := sb.Remove(ctx, u.RelPath); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSHA256AndWrite10MiB is the floor [BenchmarkUpload10MiB] is
// measured against: hash the bytes once and write them to a file.
func BenchmarkSHA256AndWrite10MiB(b *testing.B) {
	dir := b.TempDir()
	data := randomBytes(workspace.MaxUploadSize)
	name := filepath.Join(dir, "big.bin")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sum := sha256.Sum256(data)
		_ = sum
		if err := os.WriteFile(name, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Remove(name); err != nil {
			b.Fatal(err)
		}
	}
}

// nopRunner accepts every command without running it, to measure what
// building the commands costs.
type nopRunner struct{}

func (nopRunner) ID() string { return "nop" }

func (nopRunner) RunCommand(ctx context.Context, cmd workspace.Command) (*workspace.CommandResult, error) {
	return &workspace.CommandResult{}, nil
}

// BenchmarkUploadCommands10MiB builds the commands that carry a 10 MiB file
// to a command-only sandbox: one chunk's command at a time, about 96 KB
// each, so the bytes allocated per upload are the base64 text (4/3 of the
// file) and never a whole-file copy held at once.
func BenchmarkUploadCommands10MiB(b *testing.B) {
	f := workspace.File{Name: "big.bin", Data: randomBytes(workspace.MaxUploadSize)}
	ctx := context.Background()
	b.SetBytes(int64(len(f.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := workspace.Upload(ctx, nopRunner{}, "thread-1", "", f); err != nil {
			b.Fatal(err)
		}
	}
}
