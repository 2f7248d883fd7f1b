package sandboxtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testZombies runs commands that leave processes behind with the test
// process as a child subreaper, as keel is when it runs as PID 1 of a
// container: every process orphaned on the way comes to it, and must be
// reaped (a local sandbox's [localsandbox.StartReaper] does; a sandbox
// whose commands run elsewhere leaves nothing here).
func testZombies(t *testing.T, h Hardened) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	sb := h.New(t, Limits{})
	const commands = 50
	for i := range commands {
		if res := run(t, sb, "sleep 0.01 & echo ran"); !strings.Contains(string(res.Stdout), "ran") {
			t.Fatalf("Got(command %d) stdout %q, stderr %q; want it run", i, res.Stdout, clip(res.Stderr))
		}
	}
	var zombies []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		zombies = ZombieChildren()
		if len(zombies) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(zombies) > 0 {
		t.Errorf("Got(%d zombies among this process's children after %d commands: %.200q); want none: the sandbox must reap what its commands orphan",
			len(zombies), commands, zombies)
	}
}

// ZombieChildren lists the children of this process that are zombies,
// each as "PID (command)".
func ZombieChildren() []string {
	var out []string
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		for _, pid := range strings.Fields(string(b)) {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%s/stat", pid))
			if i := strings.LastIndexByte(string(stat), ')'); err == nil && i > 0 && strings.HasPrefix(string(stat[i:]), ") Z") {
				out = append(out, string(stat[:i+1]))
			}
		}
	}
	return out
}
