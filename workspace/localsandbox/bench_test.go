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
	return benchSandboxWith(b, isolated, localsandbox.Options{})
}

func benchSandboxWith(b *testing.B, isolated bool, opts localsandbox.Options) *localsandbox.Sandbox {
	b.Helper()
	if !isolated {
		opts.AllowUnisolated, opts.BwrapPath, opts.Logger = true, "/nonexistent/bwrap", slog.New(slog.DiscardHandler)
	} else {
		requireBwrap(b)
	}
	sb, err := localsandbox.New(sandboxtest.ReachableTempDir(b), opts)
	if err != nil {
		b.Fatal(err)
	}
	return sb
}

// benchClosedSandbox is an isolated sandbox below a directory only root
// may enter, which keel mounts for bubblewrap.
func benchClosedSandbox(b *testing.B, opts localsandbox.Options) *localsandbox.Sandbox {
	b.Helper()
	sb, err := localsandbox.New(filepath.Join(closedDir(b), "sb"), opts)
	if err != nil {
		b.Fatal(err)
	}
	if !sb.Status().Mounted {
		b.Fatalf("Got(Mounted) = false (%v); want the sandbox mounted for bubblewrap", sb.Status().Off)
	}
	return sb
}

// BenchmarkCommandTrue is the cost of one command: process start, the
// sandbox's setup (its cgroup and limits), the disk measured before and
// after, and the wait. "nolimits" turns every limit off, to show what
// they cost; "bwrap-mounted" is a sandbox below a directory the dedicated
// user cannot enter, which keel mounts for bubblewrap (as root only).
func BenchmarkCommandTrue(b *testing.B) {
	off := localsandbox.Limits{Processes: -1, Memory: -1, FileSize: -1, Disk: -1, CPUTime: -1}
	for _, tc := range []struct {
		name     string
		isolated bool
		limits   localsandbox.Limits
	}{
		{"bwrap", true, localsandbox.Limits{}}, {"bwrap-nolimits", true, off}, {"bwrap-mounted", true, localsandbox.Limits{}},
		{"bwrap-ownfs", true, localsandbox.Limits{}},
		{"unisolated", false, localsandbox.Limits{}}, {"unisolated-nolimits", false, off},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var sb *localsandbox.Sandbox
			switch tc.name {
			case "bwrap-mounted":
				sb = benchClosedSandbox(b, localsandbox.Options{Limits: tc.limits})
			case "bwrap-ownfs":
				sb = benchSandboxWith(b, true, localsandbox.Options{Limits: tc.limits, OwnFilesystem: true})
				b.Cleanup(func() { _ = localsandbox.Unmount(sb.Dir()) })
				if sb.Status().Enforcement.Disk != localsandbox.OwnFilesystem {
					b.Skipf("no file system of its own here: %s", sb.Status().Enforcement.Why)
				}
			default:
				sb = benchSandboxWith(b, tc.isolated, localsandbox.Options{Limits: tc.limits})
			}
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
