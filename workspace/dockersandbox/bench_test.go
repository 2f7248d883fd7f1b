package dockersandbox_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

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

// BenchmarkCommandWarmPaired: the warm command `true` through keel and
// through the docker CLI's exec in the same container, one right after
// the other (in turn which goes first), so that on a shared machine each
// pair meets the same load. It reports the medians of each and of the
// pairs' differences (keel minus docker exec), in milliseconds; its
// ns/op is left out, being the two together.
func BenchmarkCommandWarmPaired(b *testing.B) {
	docker, err := exec.LookPath("docker")
	if err != nil {
		msg := "no docker CLI to compare with (Debian's docker.io has it)"
		if os.Getenv("CI") != "" {
			b.Fatal(msg + " (CI is set, so this fails instead of skipping)")
		}
		b.Skip(msg)
	}
	for _, quota := range []int64{0, -1} {
		b.Run(fmt.Sprintf("disk quota %v", quota >= 0), func(b *testing.B) {
			e := dockertest.Engine(b)
			opts := dockersandbox.Options{Image: dockertest.Image, Prefix: dockertest.Prefix(b, e)}
			opts.Limits.Disk = quota
			sb, err := dockersandbox.New(e, "bench-paired", opts)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			viaKeel := func() time.Duration {
				start := time.Now()
				if res, err := sb.RunCommand(ctx, workspace.Command{Line: "true"}); err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
				return time.Since(start)
			}
			viaCLI := func() time.Duration {
				start := time.Now()
				if out, err := exec.Command(docker, "exec", sb.Container(), "true").CombinedOutput(); err != nil {
					b.Fatalf("docker exec: %v: %s", err, out)
				}
				return time.Since(start)
			}
			viaKeel()
			viaCLI()
			var keel, cli, diff []time.Duration
			for b.Loop() {
				var k, c time.Duration
				if len(keel)%2 == 0 {
					k, c = viaKeel(), viaCLI()
				} else {
					c, k = viaCLI(), viaKeel()
				}
				keel, cli, diff = append(keel, k), append(cli, c), append(diff, k-c)
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(medianMs(keel), "keel-ms")
			b.ReportMetric(medianMs(cli), "docker-exec-ms")
			b.ReportMetric(medianMs(diff), "overhead-ms")
		})
	}
}

// medianMs returns the median of d in milliseconds.
func medianMs(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
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
