package localsandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A process whose parent ends is handed to the nearest "subreaper"
// above it, else to PID 1, which must wait for it when it exits or it
// stays a zombie: a pid and a slot of the pids cgroup, for good. bwrap's
// processes can end that way (the outer bwrap may exit before the
// namespace's init it started), and so can what other programs keel
// runs leave behind (office converters start daemons). Normally the
// host's init reaps them; keel run as PID 1 of a container (the usual
// ENTRYPOINT ["keel","serve"] without --init) must do it itself, or it
// collects one zombie per command until the container's pids limit
// stops it from starting anything.
//
// So [StartReaper] makes keel a child subreaper (orphans of its
// descendants come to keel, wherever it runs) and waits for the orphans
// that come. It must not take the exit status of a child that keel
// started itself: os/exec's Cmd.Wait would then fail with ECHILD. A
// reaper that calls wait4(-1) would do just that. This one tells them
// apart by the pidfd os/exec holds for every process it starts (Go does
// so on Linux 5.4 and later, from the clone that creates the child until
// Wait has reaped it): on SIGCHLD (and every few seconds, since signals
// merge), it lists keel's children in /proc, and waits, by pid, for
// those that are zombies and for which no pidfd is open in keel. A
// zombie of os/exec always has its pidfd open, so it is never taken;
// an orphan never has one. Without pidfds (older kernels) the two cannot
// be told apart, and StartReaper refuses: run keel under an init
// (docker run --init, tini) there.

// reapEvery is how often the reaper looks for zombies when no SIGCHLD
// came.
const reapEvery = 5 * time.Second

// Reaper waits for the orphans keel adopts; see [StartReaper].
type Reaper struct {
	stop chan struct{}
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	n    int
}

// StartReaper makes this process a child subreaper and starts reaping
// the orphans it adopts, never a child os/exec started (see the comment
// at the top of reaper.go). It fails where processes cannot be told
// apart (no pidfd support) or the kernel refuses the subreaper.
func StartReaper() (*Reaper, error) {
	if !pidfdsWork() {
		return nil, errors.New("localsandbox: reaper: this kernel has no pidfds, so adopted processes cannot be told from keel's own; run keel under an init (docker run --init, tini)")
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("localsandbox: reaper: become a child subreaper: %w", err)
	}
	r := &Reaper{stop: make(chan struct{}), done: make(chan struct{})}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGCHLD)
	go func() {
		defer close(r.done)
		defer signal.Stop(sig)
		t := time.NewTicker(reapEvery)
		defer t.Stop()
		for {
			r.reap()
			select {
			case <-r.stop:
				return
			case <-sig:
			case <-t.C:
			}
		}
	}()
	return r, nil
}

// Stop stops reaping; this process stays a subreaper.
func (r *Reaper) Stop() {
	r.once.Do(func() { close(r.stop) })
	<-r.done
}

// Reaped is how many orphans the reaper waited for.
func (r *Reaper) Reaped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// reap waits for every zombie child that no pidfd of this process names.
func (r *Reaper) reap() {
	var owned map[int]bool
	for _, pid := range children() {
		if !isZombie(pid) {
			continue
		}
		if owned == nil {
			owned = pidfdPids()
		}
		if owned[pid] {
			continue // os/exec's: its Wait reaps it
		}
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil); err == nil {
			r.mu.Lock()
			r.n++
			r.mu.Unlock()
		}
	}
}

// children lists this process's children, from every thread's children
// file (each thread is the parent of what it forked, and orphans are
// handed to one of them), else from every process's stat.
func children() []int {
	self := os.Getpid()
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", self))
	var out []int
	if len(files) > 0 {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, s := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(s); err == nil {
					out = append(out, pid)
				}
			}
		}
		return out
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold anything, so parse
		// from its last parenthesis.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		if pid, err := strconv.Atoi(strings.Fields(s)[0]); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// pidfdPids returns the pids this process holds a pidfd for.
func pidfdPids() map[int]bool {
	out := make(map[int]bool)
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return out
	}
	for _, e := range entries {
		link, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.Contains(link, "pidfd") {
			continue
		}
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && pid > 0 {
					out[pid] = true
				}
			}
		}
	}
	return out
}

// pidfdsWork reports whether os/exec holds a pidfd for what it starts:
// it does when pidfd_open works (Go also needs CLONE_PIDFD and waitid
// on a pidfd, which came before it).
func pidfdsWork() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
