package localsandbox_test

import (
	"errors"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

var reaper struct {
	once sync.Once
	r    *localsandbox.Reaper
	err  error
}

// startReaper starts the reaper once for the whole test binary: this
// process stays a subreaper after, and orphans keep coming.
func startReaper(t *testing.T) *localsandbox.Reaper {
	t.Helper()
	reaper.once.Do(func() { reaper.r, reaper.err = localsandbox.StartReaper() })
	if reaper.err != nil {
		t.Fatalf("Got(StartReaper) error %v; want a reaper", reaper.err)
	}
	return reaper.r
}

// The reaper waits for the orphans this process adopts and never takes
// the exit status of a child os/exec started: 400 commands that each
// leave an orphan behind all get their own exit status from Wait, and no
// zombie is left.
func TestReaperReapsOrphansOnly(t *testing.T) {
	r := startReaper(t)
	before := r.Reaped()
	var wg sync.WaitGroup
	for w := range 20 {
		wg.Go(func() {
			for i := range 20 {
				err := exec.Command("/bin/sh", "-c", "sleep 0.05 & exit 3").Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 3 {
					t.Errorf("Got(command %d/%d) = %v; want its own exit status 3", w, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	var zombies []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		zombies = sandboxtest.ZombieChildren()
		if len(zombies) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(zombies) > 0 {
		t.Errorf("Got(%d zombie children: %.200q); want none", len(zombies), zombies)
	}
	if n := r.Reaped() - before; n < 300 {
		t.Errorf("Got(%d orphans reaped) of 400 left behind; want them adopted and reaped", n)
	}
}
