package localsandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A keel running as root often keeps its sandboxes below a directory the
// dedicated user cannot enter, such as /root (mode 0700) for
// "cd /root/app && keel serve". bubblewrap, running as that user, resolves
// the path of every directory it binds with realpath(3) before mounting
// it, so the user must be able to walk down to the sandbox: even
// --bind-fd does not help, since bwrap turns /proc/self/fd/N back into the
// path it names and walks that path. So in that case keel mounts the
// sandbox itself, as root, at a path the user can reach, in a mount
// namespace of bwrap's own: bwrap is started in a new mount namespace
// (unshared while it is still root, before it becomes the dedicated user,
// so that namespace is root's), and while it waits for its options keel
// enters that namespace from a thread of its own and binds the sandbox's
// directory onto mountPoint. bwrap then binds mountPoint at /home/user as
// usual. Nothing changes in the host's mount table: the namespace is
// private and goes with bwrap.

// mountPoint is where a sandbox the dedicated user cannot reach is
// mounted in bwrap's own mount namespace. /tmp exists everywhere, and
// bwrap itself never uses it: the sandbox gets a /tmp of its own. A
// variable only so that a test can make the mount fail.
var mountPoint = "/tmp"

// mountInto binds the host directory dir onto mountPoint in the mount
// namespace of the process pid, which must have been started with a
// mount namespace of its own (see invocation.prepare). The mount is made
// by the mounter, a thread of its own (see startMounter).
func mountInto(pid int, dir string) error {
	mounter.once.Do(startMounter)
	if mounter.err != nil {
		return mounter.err
	}
	req := mountRequest{pid: pid, dir: dir, done: make(chan error, 1)}
	mounter.reqs <- req
	return <-req.done
}

// mounter is the one thread that enters bwrap's mount namespaces. Entering
// one needs a thread that shares its root and working directory with no
// other (setns refuses it otherwise), so the mounter unshares its own and
// is no longer fit to run keel's code: it runs nothing else, and never
// ends. Ending it would do harm: bwrap's --die-with-parent kills a
// sandbox whose parent thread ends, and the mounter may have started one
// before it was taken.
var mounter struct {
	once sync.Once
	reqs chan mountRequest
	err  error // why the mounter could not start
}

type mountRequest struct {
	pid  int
	dir  string
	done chan error
}

func startMounter() {
	mounter.reqs = make(chan mountRequest)
	ready := make(chan error)
	go func() {
		// Never unlocked: the thread is the mounter's alone.
		runtime.LockOSThread()
		home, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ready <- fmt.Errorf("open keel's mount namespace: %w", err)
			runtime.UnlockOSThread()
			return
		}
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			unix.Close(home)
			ready <- fmt.Errorf("unshare the file system context: %w", err)
			runtime.UnlockOSThread()
			return
		}
		ready <- nil
		for req := range mounter.reqs {
			req.done <- mountIn(home, req.pid, req.dir)
		}
	}()
	mounter.err = <-ready
}

// mountIn makes, on the mounter's thread, the mount of mountInto, and
// comes back to keel's mount namespace, home.
func mountIn(home, pid int, dir string) error {
	ns, err := unix.Open(fmt.Sprintf("/proc/%d/ns/mnt", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open bwrap's mount namespace: %w", err)
	}
	defer unix.Close(ns)
	if err := unix.Setns(ns, unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("enter bwrap's mount namespace: %w", err)
	}
	err = unix.Mount(dir, mountPoint, "", unix.MS_BIND|unix.MS_REC, "")
	if err != nil {
		err = fmt.Errorf("mount the sandbox on %s: %w", mountPoint, err)
	}
	if back := unix.Setns(home, unix.CLONE_NEWNS); back != nil {
		// The mounter cannot go on elsewhere than in keel's namespace.
		panic(fmt.Sprintf("localsandbox: leave bwrap's mount namespace: %v", back))
	}
	return err
}

type mountProbeKey struct {
	bin      string
	uid, gid int
}

// mountProbes caches, per bwrap binary and user, whether keel can mount
// sandboxes for bwrap: it needs CAP_SYS_ADMIN, which root in a container
// may lack, and the answer does not change while keel runs.
var mountProbes sync.Map // mountProbeKey -> *probeResult

// probeMount reports whether a command can run in the sandbox kept in
// dir, mounted for bwrap (see mountInto): it runs "exit 0" so, once per
// binary and user.
func probeMount(info bwrapInfo, u runAs, dir string) error {
	v, _ := mountProbes.LoadOrStore(mountProbeKey{info.bin, u.uid, u.gid}, &probeResult{})
	p := v.(*probeResult)
	p.once.Do(func() {
		// Without resource limits: the bwrap probe tried those, and
		// RLIMIT_NPROC would count the dedicated user's exited commands
		// that an init slow to reap still holds as zombies.
		l := Limits{}.WithDefaults()
		inv, err := newInvocation(info, u, l, dir, true, nil)
		if err != nil {
			p.err = err
			return
		}
		defer inv.close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if reason, err := tryInvocation(ctx, info, inv, nil); err != nil {
			p.err = errors.New(reason)
		}
	})
	return p.err
}

// reachOrMount decides how bwrap gets at the sandbox kept in dir: by its
// path when the user u can walk down to it, else mounted by keel (see
// mountInto), which it reports. When neither works, the error says which
// directory stops the user and what to do. isolated is false when
// commands run without bwrap: they then need the path.
func reachOrMount(info bwrapInfo, u runAs, dir string, isolated bool) (mounted bool, err error) {
	err = u.reach(dir, info.bin)
	var ie *IsolationError
	if err == nil || !isolated || !errors.As(err, &ie) {
		return false, err
	}
	if merr := probeMount(info, u, dir); merr != nil {
		ie.Reason += ", and keel cannot mount the sandbox for it (" + merr.Error() + ")"
		return false, ie
	}
	return true, nil
}
