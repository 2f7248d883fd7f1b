package sandboxtest

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/keel-go/keel/workspace"
)

// The three ways a command once took a sandbox past its disk quota: a
// burst of fallocate calls between two measurements, a directory nested
// deeper than PATH_MAX that made every measurement fail, and so many
// files that measuring took seconds. After each, what the sandbox holds
// (allocated blocks, as du counts them from inside) must be within its
// quota plus one file of the attack.

const (
	bypassQuota = 32 << 20
	bypassFile  = 8 << 20
)

// allocated returns the bytes du counts in sb (allocated blocks, deep
// trees included): on the host when h can say where, else from inside.
func allocated(t *testing.T, h Hardened, sb workspace.Sandbox, run func(string) string) int64 {
	t.Helper()
	var out string
	if h.HostPath != nil {
		b, err := exec.Command("du", "-sk", h.HostPath(sb)).Output()
		if err != nil {
			t.Fatalf("Got(du -sk %s) error %v; want it measured", h.HostPath(sb), err)
		}
		out, _, _ = strings.Cut(string(b), "\t")
	} else {
		out = run("du -sk . 2>/dev/null | cut -f1")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		t.Fatalf("Got(du -sk .) = %q in %s; want a number", out, sb.ID())
	}
	return n << 10
}

// writeSlowly writes n files of bypassFile bytes, half a second apart
// (longer than a measurement takes), ignoring failures.
func writeSlowly(n int) string {
	return fmt.Sprintf(`i=0; while [ $i -lt %d ]; do head -c %d /dev/zero > w$i 2>/dev/null; sleep 0.5; i=$((i+1)); done; true`, n, bypassFile)
}

func testQuotaBypasses(t *testing.T, h Hardened) {
	within := func(t *testing.T, what string, got int64) {
		t.Helper()
		if got > bypassQuota+bypassFile {
			t.Errorf("Got(%s) = %d MiB held; want at most the %d MiB quota and one %d MiB file",
				what, got>>20, bypassQuota>>20, bypassFile>>20)
		}
	}
	t.Run("FallocateBurst", func(t *testing.T) {
		sb := h.New(t, Limits{Disk: bypassQuota})
		do := func(line string) string { return string(run(t, sb, line).Stdout) }
		// Ten reservations of one file each, as fast as fallocate goes;
		// twice, as a second command would.
		line := fmt.Sprintf(`i=0; while [ $i -lt 10 ]; do fallocate -l %d f$1$i 2>/dev/null; i=$((i+1)); done; true`, bypassFile)
		do("set -- a; " + line)
		do("set -- b; " + line)
		within(t, "after two fallocate bursts", allocated(t, h, sb, do))
	})
	t.Run("DeeperThanPathMax", func(t *testing.T) {
		sb := h.New(t, Limits{Disk: bypassQuota})
		do := func(line string) string { return string(run(t, sb, line).Stdout) }
		// 30 levels of 200 characters: 6,000 bytes of path, past
		// PATH_MAX (4,096), made by moving one chain of 15 under another
		// (no single path given to the kernel is that long); then ten
		// files of 8 MiB. The depth is checked from half way down, by
		// paths shorter than PATH_MAX (a find that works by whole
		// paths, such as busybox's, and a cd that keeps the logical
		// path, such as busybox sh's, cannot go all the way).
		res := run(t, sb, `d=$(printf 'd%.0s' $(seq 200)); p=$d; i=1; while [ $i -lt 15 ]; do p=$p/$d; i=$((i+1)); done; `+
			`mkdir -p $p && mv $d x && mkdir -p $p && mv x $p/ && (cd $p/x && ls -d ${p#*/} >/dev/null && echo deep); `+writeSlowly(10))
		if !strings.Contains(string(res.Stdout), "deep") {
			t.Fatalf("Got(stdout %q, stderr %q); want a directory past PATH_MAX", res.Stdout, clip(res.Stderr))
		}
		within(t, "after writing below a directory past PATH_MAX", allocated(t, h, sb, do))
	})
	t.Run("ManyFiles", func(t *testing.T) {
		const files = 30_000
		sb := h.New(t, Limits{Disk: bypassQuota, Files: 20_000})
		do := func(line string) string { return string(run(t, sb, line).Stdout) }
		// More empty files than the sandbox may hold, then writes: a
		// measurement must not be stretched or blinded by them.
		do(fmt.Sprintf(`mkdir many && cd many && seq %d | xargs touch 2>/dev/null; true`, files))
		do(writeSlowly(10))
		within(t, fmt.Sprintf("after %d files and writes", files), allocated(t, h, sb, do))
		// The sandbox can be cleaned: removing the files works, within a
		// few commands.
		for range 20 {
			do("rm -rf many; true")
			if strings.TrimSpace(do("[ -e many ] && echo left")) == "" {
				break
			}
		}
		if out := strings.TrimSpace(do("[ -e many ] && echo left; echo ok > after && cat after")); out != "ok" {
			t.Errorf("Got(%q) after removing the files; want them gone and a file written", out)
		}
	})
}
