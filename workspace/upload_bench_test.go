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
