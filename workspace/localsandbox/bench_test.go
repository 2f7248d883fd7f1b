package localsandbox_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

func benchSandbox(b *testing.B, isolated bool) *localsandbox.Sandbox {
	b.Helper()
	opts := localsandbox.Options{}
	if !isolated {
		opts = localsandbox.Options{AllowUnisolated: true, BwrapPath: "/nonexistent/bwrap", Logger: slog.New(slog.DiscardHandler)}
	} else {
		requireBwrap(b)
	}
	sb, err := localsandbox.New(b.TempDir(), opts)
	if err != nil {
		b.Fatal(err)
	}
	return sb
}

// BenchmarkCommandTrue is the cost of one command: process start, the
// sandbox's setup, and the wait.
func BenchmarkCommandTrue(b *testing.B) {
	for _, tc := range []struct {
		name     string
		isolated bool
	}{{"bwrap", true}, {"unisolated", false}} {
		b.Run(tc.name, func(b *testing.B) {
			sb := benchSandbox(b, tc.isolated)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := sb.RunCommand(ctx, workspace.Command{Line: "true"})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("Got(true) = %v, %v; want exit 0", res, err)
				}
			}
		})
	}
}

// BenchmarkUpload is the cost of putting a new file into an isolated
// sandbox, through its file capability and through commands alone (base64
// chunks decoded inside bubblewrap).
func BenchmarkUpload(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1MiB", 1 << 20}, {"10MiB", 10 << 20}} {
		data := make([]byte, size.n)
		for i := range data {
			data[i] = byte(i*31 + i>>8)
		}
		for _, path := range []string{"filesystem", "commands"} {
			b.Run(size.name+"/"+path, func(b *testing.B) {
				sb := benchSandbox(b, true)
				var target workspace.Sandbox = sb
				if path == "commands" {
					target = sandboxtest.CommandOnly(sb)
				}
				ctx := context.Background()
				f := workspace.File{Name: "data.bin", MediaType: "application/octet-stream", Data: data}
				b.SetBytes(int64(size.n))
				b.ReportAllocs()
				for b.Loop() {
					u, err := workspace.Upload(ctx, target, "bench", "", f)
					if err != nil || !u.Written {
						b.Fatalf("Got(Upload) = %+v, %v; want a new file written", u, err)
					}
					b.StopTimer()
					if err := os.RemoveAll(filepath.Join(sb.Dir(), "uploads")); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			})
		}
	}
}
