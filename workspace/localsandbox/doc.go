// Package localsandbox keeps an agent's sandbox in a directory on this
// machine and runs its commands inside bubblewrap (bwrap).
//
// # Isolation
//
// A command runs as sh -c inside bwrap with every namespace unshared (no
// network but its own loopback, its own process tree, no host IPC, its own
// hostname), all capabilities dropped, nested user namespaces disabled
// (bwrap 0.8 and later), a new session (it cannot push input into keel's
// terminal), and killed if keel dies. Its file system is: /usr and the
// /bin, /lib... links read-only, a few files of /etc read-only, an
// /etc/passwd and /etc/group of its own (root, user, nobody), its own /proc
// mounted read-only as a whole (so /proc/sys, /proc/sysrq-trigger and the
// like cannot be written), a /dev with the usual device nodes, a fresh
// /tmp and /dev/shm, and the sandbox's directory read-write at /home/user,
// where it starts; the rest is read-only. The host's environment never
// reaches it. Each command has a time limit and a cap on the output kept;
// on timeout or cancellation the whole process tree is killed.
//
// bwrap gets its options through a pipe (--args 3): the command line of
// bwrap, which is also the command line of the sandbox's first process
// (/proc/1/cmdline inside), holds only "--args 3 -- /bin/sh -c LINE", and
// never the sandbox's host path.
//
// # Who runs the commands
//
// Root in a user namespace is still uid 0 to the host's file permission
// checks: a command that is root inside can write every root-owned file
// it can see, such as /proc/sys/kernel/core_pattern, a known way onto the
// host. So commands never run as the host's root:
//
//   - When keel runs as root, bwrap runs as a dedicated unprivileged user,
//     [DefaultUID]:[DefaultGID] (2100000000, outside the ranges systems
//     hand out; [Options].UID and GID change it). That user owns each
//     sandbox's directory and the files keel writes into it, so commands
//     can change uploads; a directory made by an older keel is given to
//     it, with everything in it, the first time it is used. Files owned by
//     the host's root show inside as owned by nobody.
//   - When keel runs as another user, the user namespace maps to that
//     user.
//
// Inside, commands are always [InsideUID] (1000, "user"). The pipes of a
// command's standard streams are given to the same user, so that opening
// /dev/stdout works.
//
// bubblewrap resolves the path of what it binds as the user it runs as,
// with realpath(3), even for --bind-fd (it turns /proc/self/fd/N back
// into the path it names), so the dedicated user would have to enter
// every directory above a sandbox. Where it cannot, as for sandboxes kept
// under /root (mode 0700) by "cd /root/app && keel serve", keel mounts
// the sandbox for bwrap: bwrap starts in a mount namespace of its own,
// unshared while it is still root, and while it waits for its options
// keel, as root, binds the sandbox's directory onto /tmp in that
// namespace, which bwrap then binds at /home/user. The host's mounts do
// not change, and the namespace goes with bwrap; [Status].Mounted says
// so. That needs CAP_SYS_ADMIN, which root in a container may lack: then
// that sandbox's commands are off, with an [*IsolationError] saying which
// directory stops the user and what to do (keep the sandboxes elsewhere,
// or give the user search access with an ACL); its files still work.
// Unisolated commands start in the sandbox's directory by its path, so
// there it is always the latter.
//
// # Limits
//
// Each sandbox has [Limits], with defaults: 256 processes, 1 GiB of
// memory, 1 GiB per file, 2 GiB of disk, and 10 minutes of CPU per process
// of a command. They are enforced by the best mechanism this machine
// offers, chosen once per process; [Check] and [Sandbox.Status] say which,
// for the line a program logs at start ([Status.Warning] is loud when a
// limit is not enforced):
//
//   - Processes and memory: a cgroup per sandbox directory in use, shared
//     by its commands that run at the same time and removed after the last
//     one. keel makes it in the unified (v2) hierarchy when that offers the
//     memory and pids controllers, under a "keel-sandboxes" group in its
//     own cgroup; a v2 cgroup with processes in it cannot hand controllers
//     to children, so when keel is alone in its cgroup (a systemd service
//     with Delegate=yes, a container) it first moves itself into a child
//     "keel". Otherwise, on hosts that mount the v1 hierarchies, it uses
//     the memory and pids hierarchies' own groups. The bwrap process joins
//     the group while it waits for its options, so everything it starts
//     is counted. A memory cgroup counts the sandbox's /tmp too, and swap
//     is not given (memory.swap.max 0, memsw limit equal to the memory
//     limit).
//   - Without a cgroup: resource limits (setrlimit) on the command's first
//     process, inherited by all it starts. RLIMIT_DATA bounds each
//     process's memory (not RLIMIT_AS, which counts the address space that
//     V8 or the JVM reserve without using), and /tmp is a tmpfs of the
//     memory limit's size. RLIMIT_NPROC counts every process of a user: it
//     is set only for the dedicated user, and then the limit is shared by
//     all sandboxes of all keel processes on the machine; for keel's own
//     user it would count keel's own processes too, so nothing limits
//     processes then, and the status says so loudly.
//   - Always resource limits: RLIMIT_FSIZE (a larger write gets SIGXFSZ)
//     and RLIMIT_CPU (SIGXCPU, then SIGKILL a second later), per process;
//     core dumps are off. Setting them on the bwrap process of another
//     user needs CAP_SYS_RESOURCE, which root in a container lacks; then
//     util-linux's prlimit runs bwrap with them, and without prlimit no
//     resource limit is set (said loudly).
//   - Disk and files: with [Options].OwnFilesystem, where keel runs as
//     root with CAP_SYS_ADMIN, loop devices and mkfs.ext4, each sandbox is
//     a file system of its own the size of its quota (a sparse ext4 image
//     DIR.img beside its directory, loop-mounted with discard, nosuid
//     and nodev, with [Limits].Files inodes): the kernel enforces the
//     quota, whatever a command does and however fast, and a command
//     that fills it is ended. The mount outlives keel ([Unmount] detaches
//     it), which is why it is asked for. Otherwise keel measures the
//     directory from descriptor to descriptor (no path is too deep),
//     counting each file by the larger of its allocated and apparent
//     size, before a command, every 250 ms while it runs, after it, and
//     before each write. A command that takes the sandbox over its quota
//     is ended, and so is one during which a measurement fails (a tree
//     over 1,024 directories deep, more than [Limits].Files files): not
//     seeing is never taken for being within the quota. fallocate fails
//     there (EOPNOTSUPP, from the seccomp filter), since it reserves
//     gigabytes between two measurements. Between two measurements a
//     command can overshoot by what it writes in 250 ms. Either way, a
//     command after which the sandbox is over (or full) returns its
//     result with a last line of stderr saying so; writes and uploads
//     that would go over are refused with an error wrapping
//     [workspace.ErrQuotaExceeded]; commands still run over the quota,
//     so that files can be removed.
//
// Without cgroups, what cannot be enforced is a bound on a sandbox's
// memory as a whole (each process gets the limit, so several processes can
// hold several times it, and /tmp a further one), and a process limit per
// sandbox (only per user, shared). With cgroups, memory and processes are
// bounded per sandbox; CPU time stays per process, bounded in total by the
// command's time limit.
//
// # Syscalls
//
// bwrap loads a seccomp filter keel writes at start as classic BPF for
// x86_64 and arm64 (no cgo, no libseccomp) on every command: what
// container runtimes refuse by default fails with EPERM (kernel keyrings,
// ptrace, mounting, kernel modules, kexec, bpf, perf_event_open,
// userfaultfd, new namespaces, open_by_handle_at, personality changes,
// the clock, swap, reboot), io_uring and clone3 with ENOSYS so that
// programs fall back. [BlockedSyscalls] counts them; [Status] says
// whether the filter is on.
//
// # Orphans
//
// [StartReaper] makes keel a child subreaper and reaps the processes it
// adopts, telling them from its own children by the pidfds os/exec holds,
// so that keel run as PID 1 of a container leaves no zombie behind its
// commands. keel serve starts it.
//
// # Without bubblewrap
//
// Whether bwrap works is probed once per binary and user. When it is
// missing or cannot run, [New] still returns a sandbox whose files work,
// and its commands are off: RunCommand returns an [*IsolationError] whose
// message says so and how to install bubblewrap. Only with
// [Options].AllowUnisolated do commands run with plain sh -c in the
// directory; they then see the whole machine, and only the disk quota
// applies (as root, they still run as the dedicated user). A warning is
// logged.
//
// # Files
//
// The sandbox's file operations ([Sandbox.WriteFile], [Sandbox.ReadFile],
// [Sandbox.RemoveAll]...) work on the host side through os.Root: a path
// that is absolute, holds "..", or passes through a symbolic link leading
// out of the directory (such as one a command planted) fails with an error
// wrapping [workspace.ErrPathEscapes]. Absolute symbolic links are refused
// even when, seen from inside, they point into /home/user. Files are
// opened with O_NONBLOCK and described by fstat on the same descriptor:
// a FIFO, a socket or a device is refused with an error wrapping
// [workspace.ErrNotRegularFile] instead of blocking keel in open(2).
// [Sandbox.OpenFile] ([workspace.FileOpener]) follows no link at all
// (openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS, or an O_NOFOLLOW
// walk on older kernels), for reading part of a file or streaming it.
//
// # What a command can still learn
//
// /proc/self/mountinfo shows, for /home/user, the path of the sandbox's
// directory within the file system that holds it: a bind mount cannot hide
// it. Keep the sandbox root on a file system of its own (a volume mounted
// there) and that path is only the sandbox's directory name, such as
// /resource-alice-1b2c...; on the host's root file system it is the whole
// host path.
//
// # Resolution
//
// [NewResolver] gives each run a sandbox: one per resource (the default,
// so different users never share files), one per thread, or one shared by
// all. Directory names come from [DirName], which no two IDs share.
package localsandbox
