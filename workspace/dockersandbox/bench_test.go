package dockersandbox_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
)

func benchSandbox(b *testing.B, key string) *dockersandbox.Sandbox {
	b.Helper()
	e := dockertest.Engine(b)
	sb, err := dockersandbox.New(e, key, dockersandbox.Options{Image: dockertest.Image, Prefix: dockertest.Prefix(b, e)})
	if err != nil {
		b.Fatal(err)
	}
	return sb
}

// BenchmarkUpload10MiB: a 10 MiB file uploaded into a running container
// through the upload writer (stat, quota, write of the part, rename),
// new content each time. Compare with docker cp of the same size
// (BENCHMARKS.md).
func BenchmarkUpload10MiB(b *testing.B) {
	sb := benchSandbox(b, "bench-upload")
	ctx := context.Background()
	data := make([]byte, 10<<20)
	if _, err := sb.RunCommand(ctx, workspace.Command{Line: "true"}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		i++
		binary.BigEndian.PutUint64(data, i)
		if _, err := workspace.Upload(ctx, sb, "t1", "", workspace.File{Name: "f.bin", Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommandWarm: a command in a running container, against docker
// exec of the same (BENCHMARKS.md); with the disk quota on, the sandbox
// is measured after it (before it too when the last measurement did not
// find it within its quota, which a warm sandbox's did), in an empty
// sandbox and in one of 10,000 files.
func BenchmarkCommandWarm(b *testing.B) {
	for _, tc := range []struct {
		quota int64
		files int
	}{{0, 0}, {0, 10_000}, {-1, 0}} {
		b.Run(fmt.Sprintf("disk quota %v, %d files", tc.quota >= 0, tc.files), func(b *testing.B) {
			e := dockertest.Engine(b)
			opts := dockersandbox.Options{Image: dockertest.Image, Prefix: dockertest.Prefix(b, e)}
			opts.Limits.Disk = tc.quota
			sb, err := dockersandbox.New(e, "bench-warm", opts)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			line := "true"
			if tc.files > 0 {
				line = fmt.Sprintf("mkdir many && cd many && seq %d | xargs touch", tc.files)
			}
			if res, err := sb.RunCommand(ctx, workspace.Command{Line: line}); err != nil || res.ExitCode != 0 {
				b.Fatal(res, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := sb.RunCommand(ctx, workspace.Command{Line: "true"})
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// BenchmarkColdSandbox: a sandbox's first command: its container made
// and started, then the command run.
func BenchmarkColdSandbox(b *testing.B) {
	e := dockertest.Engine(b)
	prefix := dockertest.Prefix(b, e)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		n++
		sb, err := dockersandbox.New(e, fmt.Sprintf("cold-%d", n), dockersandbox.Options{Image: dockertest.Image, Prefix: prefix})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sb.RunCommand(ctx, workspace.Command{Line: "true"}); err != nil {
			b.Fatal(err)
		}
	}
}
