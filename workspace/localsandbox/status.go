package localsandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Status says how a sandbox's commands run on this machine: isolated or
// not, as whom, with which limits enforced how, or why they are off. It is
// what a program tells its operator once at start ([Check]).
type Status struct {
	// Isolated reports that commands run inside bubblewrap.
	Isolated bool
	// Off is why commands cannot run (an [*IsolationError]); nil when they
	// can.
	Off error
	// UID and GID are the host user and group commands run as.
	UID, GID int
	// Dedicated reports that UID and GID are the dedicated user of a keel
	// running as root, rather than keel's own.
	Dedicated bool
	// Mounted reports that the dedicated user cannot walk down to the
	// sandboxes, so keel mounts each one for bubblewrap in a mount
	// namespace of bwrap's own.
	Mounted bool
	// Limits are the sandbox's limits, defaults filled in.
	Limits Limits
	// Enforcement says how each limit is enforced.
	Enforcement Enforcement
	// SeccompBlocked is how many syscalls the commands' seccomp filter
	// refuses; 0 without a filter, and then NoSeccomp says why.
	SeccompBlocked int
	NoSeccomp      string
}

// seccompStatus says whether isolated commands run under the seccomp
// filter.
func seccompStatus(isolated bool, info bwrapInfo) (int, string) {
	switch {
	case !isolated:
		return 0, "commands do not run inside bubblewrap"
	case info.noSeccomp != "":
		return 0, info.noSeccomp
	}
	return BlockedSyscalls(), ""
}

// Status returns how this sandbox's commands run.
func (s *Sandbox) Status() Status {
	st := Status{
		Isolated:    s.mode == modeIsolated,
		Off:         s.off,
		UID:         s.user.uid,
		GID:         s.user.gid,
		Dedicated:   s.user.dedicated,
		Mounted:     s.mounted,
		Limits:      s.opts.Limits,
		Enforcement: s.enf,
	}
	st.SeccompBlocked, st.NoSeccomp = seccompStatus(s.mode == modeIsolated, s.bwrap)
	return st
}

// Check returns the status that the sandboxes kept under root and made
// with opts would have, without making one: bubblewrap and the cgroups are
// probed (once per process) and root is made if needed, but nothing is
// given to the dedicated user. A program calls it at start to print one
// line: [Status.Warning] if there is one, else [Status.String].
func Check(root string, opts Options) Status {
	opts = opts.withDefaults()
	u := userFor(opts)
	st := Status{UID: u.uid, GID: u.gid, Dedicated: u.dedicated, Limits: opts.Limits}
	if err := validIDs(opts); err != nil {
		st.Off = fmt.Errorf("localsandbox: %w", err)
		return st
	}
	abs, err := filepath.Abs(root)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err != nil {
		st.Off = fmt.Errorf("localsandbox: sandbox root %s: %w", root, err)
		return st
	}
	info, err := probe(opts.BwrapPath, u)
	cg := &cgroups{}
	switch {
	case err == nil:
		cg = systemCgroups()
		st.Isolated = true
	case !opts.AllowUnisolated:
		st.Off = err
	}
	if st.Off == nil {
		if st.Mounted, st.Off = reachOrMount(info, u, abs, st.Isolated); st.Off != nil {
			st.Isolated = false
		}
	}
	noFS := ""
	switch {
	case opts.Limits.Disk < 0:
	case !opts.OwnFilesystem:
		noFS = "OwnFilesystem is not set"
	default:
		if _, err := fsQuotaUsable(abs); err != nil {
			noFS = err.Error()
		}
	}
	st.Enforcement = enforcement(opts.Limits, cg, st.Isolated, u.dedicated, info.noRlimits, noFS)
	st.SeccompBlocked, st.NoSeccomp = seccompStatus(st.Isolated, info)
	return st
}

// String describes how commands run and are limited, in one line.
func (st Status) String() string {
	var b strings.Builder
	switch {
	case st.Off != nil:
		return st.Off.Error()
	case st.Isolated:
		fmt.Fprintf(&b, "localsandbox: sandbox commands run isolated by bubblewrap as uid %d (uid %d inside)", st.UID, InsideUID)
		if st.Mounted {
			b.WriteString(", each sandbox mounted for it by keel since that user cannot enter a directory above them")
		}
	default:
		fmt.Fprintf(&b, "localsandbox: sandbox commands run UNISOLATED as uid %d: they see the whole machine, its files and its network", st.UID)
	}
	if st.Isolated {
		if st.SeccompBlocked > 0 {
			fmt.Fprintf(&b, "; a seccomp filter refuses %d syscalls", st.SeccompBlocked)
		} else {
			b.WriteString("; NO seccomp filter (" + st.NoSeccomp + ")")
		}
	}
	b.WriteString("; limits per sandbox: " + describe(st.Limits, st.Enforcement))
	if st.Enforcement.Why != "" {
		b.WriteString(" (" + st.Enforcement.Why + ")")
	}
	return b.String()
}

// Warning returns what an operator must be told loudly, or "": that
// commands are off, that they run unisolated, that a limit is not
// enforced, or that they run without the seccomp filter.
func (st Status) Warning() string {
	if st.Off != nil || !st.Isolated {
		return st.String()
	}
	if missing := st.Enforcement.unenforced(); len(missing) > 0 {
		return fmt.Sprintf("localsandbox: sandbox commands have NO limit on %s: %s; %s",
			strings.Join(missing, ", "), st.Enforcement.Why, st.String())
	}
	if st.SeccompBlocked == 0 {
		return "localsandbox: sandbox commands run WITHOUT a seccomp filter (" + st.NoSeccomp + "): keyrings, io_uring, ptrace and the like are open to them; " + st.String()
	}
	return ""
}
