package dockersandbox_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// forgeLast is a command that leaves behind a process (setsid, and given
// a second to get there, so that the command's end does not end it)
// which writes line as the last measurement once the command's wrapper,
// having kept its own measurement after the command, is gone.
func forgeLast(line string) string {
	return fmt.Sprintf(`read -r w d < /tmp/.keel/run.$KEEL_COMMAND; `+
		`setsid sh -c "while [ -d /proc/$w ]; do sleep 0.1; done; echo '%s' > /tmp/.keel/du" </dev/null >/dev/null 2>&1 & sleep 1`, line)
}

// TestLastMeasurement: the measurement after each command is kept, and a
// command is measured before it only when that one did not find the
// sandbox within its quota. A kept line, stale or written by a command
// itself, never lets a command past the quota: one that claims more than
// the quota is measured again, one that claims less holds the command to
// the quota itself.
func TestLastMeasurement(t *testing.T) {
	t.Parallel() // mostly waits for the measurements
	ctx := context.Background()
	t.Run("KeptAfterACommand", func(t *testing.T) {
		sb := newSandbox(t, dockersandbox.Options{})
		mustRun(t, sb, "head -c 300000 /dev/zero > f")
		got := strings.TrimSpace(string(mustRun(t, sb, "cat /tmp/.keel/du").Stdout))
		n, err := dockersandbox.Measure(ctx, sb)
		if err != nil {
			t.Fatal(err)
		}
		if want := "keel-du 0 " + strconv.FormatInt(n, 10); got != want || n < 300000 {
			t.Errorf("Got(kept line) = %q; want %q, the sandbox's size measured anew (at least the 300000 bytes written)", got, want)
		}
	})
	t.Run("ClaimOverTheQuotaIsMeasuredAgain", func(t *testing.T) {
		// Were the claim of 1 GB believed, the command could fill the
		// sandbox to it.
		const quota = 4 << 20
		sb := newSandbox(t, dockersandbox.Options{Limits: localsandbox.Limits{Disk: quota}})
		mustRun(t, sb, forgeLast("keel-du 0 1000000000"))
		time.Sleep(3 * time.Second)
		start := time.Now()
		res := mustRunAny(t, sb, `i=0; while :; do head -c 500000 /dev/zero > f$i; i=$((i+1)); done`)
		if !strings.Contains(string(res.Stderr), "the command was ended: it took the sandbox over its 4 MiB disk quota") {
			t.Errorf("Got(stderr %q) of a command filling the sandbox after a forged claim; want it ended at the quota", clipped(res.Stderr))
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("Got(the filling command) ended after %v; want it ended soon after it went over", d)
		}
		n, err := dockersandbox.Measure(ctx, sb)
		if err != nil || n >= 1e9 {
			t.Errorf("Got(sandbox size) = %d, %v; want the command ended well before the 1 GB claimed", n, err)
		}
	})
	t.Run("ClaimWithinTheQuotaHoldsToTheQuota", func(t *testing.T) {
		// Over the quota, with a kept line saying it is not: the
		// command is held to the quota (ended at its first measurement)
		// rather than to what the sandbox holds.
		sb := newSandbox(t, dockersandbox.Options{Limits: localsandbox.Limits{Disk: 1 << 20}})
		mustRunAny(t, sb, "head -c 1500000 /dev/zero > f; "+forgeLast("keel-du 0 0"))
		time.Sleep(3 * time.Second)
		res := mustRunAny(t, sb, "sleep 2; echo finished")
		if strings.Contains(string(res.Stdout), "finished") || !strings.Contains(string(res.Stderr), "the command was ended") {
			t.Errorf("Got(stdout %q, stderr %q); want the command ended at its first measurement", res.Stdout, clipped(res.Stderr))
		}
	})
	t.Run("OverTheQuotaRemovalRuns", func(t *testing.T) {
		// The kept line says over: the command is measured before it
		// and may hold what the sandbox held, so removing files is not
		// ended, however long it takes.
		sb := newSandbox(t, dockersandbox.Options{Limits: localsandbox.Limits{Disk: 1 << 20}})
		if res := mustRunAny(t, sb, "head -c 1500000 /dev/zero > f"); !strings.Contains(string(res.Stderr), "quota") {
			t.Fatalf("Got(stderr %q); want the sandbox over its quota", res.Stderr)
		}
		res := mustRunAny(t, sb, "sleep 1; rm f && echo removed")
		if string(res.Stdout) != "removed\n" || len(res.Stderr) > 0 {
			t.Errorf("Got(stdout %q, stderr %q); want the file removed and nothing said", res.Stdout, res.Stderr)
		}
	})
}

// TestMeasureForgedNames: names with newlines, made to look like the
// lines of du the measurement reads, change nothing: a readable tree is
// measured as du measures it, and one du cannot read all of is still not
// measured.
func TestMeasureForgedNames(t *testing.T) {
	ctx := context.Background()
	forge := `nl=$(printf '\nx'); nl=${nl%x}; tab=$(printf '\t'); ` +
		`mkdir -p "b$nl" && touch "a${nl}7${tab}." "b$nl/c" "d${nl}7${tab}.${nl}" && ` +
		`head -c 100000 /dev/zero > "e${nl}1${tab}."`
	sb := newSandbox(t, dockersandbox.Options{})
	mustRun(t, sb, forge)
	ref := strings.Fields(string(mustRun(t, sb, "du -sb .; du -sk .").Stdout))
	if len(ref) != 4 {
		t.Fatalf("Got(du -sb, du -sk) = %q; want two totals", ref)
	}
	b, _ := strconv.ParseInt(ref[0], 10, 64)
	k, _ := strconv.ParseInt(ref[2], 10, 64)
	if n, err := dockersandbox.Measure(ctx, sb); err != nil || n != max(b, k<<10) {
		t.Errorf("Got(Measure) = %d, %v; want %d, the larger of du's apparent and allocated totals", n, err, max(b, k<<10))
	}
	// A directory past PATH_MAX, made as the hardening suite makes it.
	mustRun(t, sb, `d=$(printf 'd%.0s' $(seq 200)); p=$d; i=1; while [ $i -lt 15 ]; do p=$p/$d; i=$((i+1)); done; `+
		`mkdir -p $p && mv $d x && mkdir -p $p && mv x $p/ && `+forge)
	if n, err := dockersandbox.Measure(ctx, sb); !errors.Is(err, dockersandbox.ErrUnreadable) {
		t.Errorf("Got(Measure) = %d, %v; want %v", n, err, dockersandbox.ErrUnreadable)
	}
}

// clipped shortens output for a test's message.
func clipped(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
