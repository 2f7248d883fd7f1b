// Package dockersandbox keeps an agent's sandbox in a Docker container
// and a named volume, on an engine that any number of keel servers share.
//
// # Containers and volumes
//
// A [Sandbox] is named by a key: "resource-" or "thread-" and
// [localsandbox.DirName] of the ID, or "shared", as a [Resolver] makes
// them. Its files live in the volume PREFIX-KEY, mounted at /home/user
// (HomeDir, as in a local sandbox, so upload paths read alike:
// /home/user/uploads/<thread>/<sha256>.<ext>), and its commands run in
// the container PREFIX-KEY-DIGEST, where DIGEST stands for the
// container's settings (image, runtime, limits). Names depend on nothing
// else, so every server finds the same container and volume: the first
// to need it creates it, and a server that loses the race gets 409
// Conflict from the engine and attaches to the winner's (one that is
// still being made, or removed, is waited for). Servers configured
// differently share the volume, each with its own container. Containers
// and volumes carry labels ([LabelPrefix], [LabelKey], [LabelSpec]) so
// that any server finds them again.
//
// A container stops by itself once no command ran for the idle time
// ([Options].IdleTimeout, default 15 minutes): its main process is a
// small watcher, and the engine removes the container when it exits
// (AutoRemove). The volume, and every file in it, stays until
// [Resolver.Remove]; the next use makes a new container on it. A
// command whose server died mid-command is ended by its own wrapper
// after its time limit, so no server is needed for a container to stop.
// [Resolver.Reap], which resolvers run now and then, removes containers
// left made but never started.
//
// # Isolation and limits
//
// Containers run with no network (NetworkMode none: only a loopback of
// their own, so not even the host's loopback, where keel listens, is in
// reach), as uid 1000 ([Options].UID), with every capability dropped,
// no-new-privileges, the engine's default seccomp profile with keel's
// refusals added (see seccomp_linux.go: ptrace, keyrings, mounts, new
// namespaces, name_to_handle_at fail with EPERM, io_uring with ENOSYS,
// fallocate with ENOSPC under a measured quota), a read-only
// root file system, a private IPC namespace, and a 64 MiB tmpfs at /tmp;
// the volume is the only place they can write to last. Limits
// ([Options].Limits, those of a local sandbox, and [Options].CPUs) are
// the engine's: processes are the pids cgroup (raised by the container's
// own 4; each command's wrapper takes 3), memory the memory cgroup with
// no swap (it counts /tmp), CPUs the CPU quota, file size and CPU time
// per process rlimits (fsize, cpu), core dumps off. The disk quota is
// measured with du in the container (each file by the larger of its
// apparent and allocated size), before each write, after each command
// (by the command's own wrapper, in the same exec), before each command
// unless the last measurement found the sandbox within its quota (the
// size before a command matters only when it is over the quota; see
// wrapperScript in scripts.go), and one measurement after another from
// the command's start while it runs: a command that takes the sandbox
// over it is ended, a write is refused with an error wrapping
// [workspace.ErrQuotaExceeded], as in a local sandbox. A measurement
// that fails (a tree deeper than du reaches, more entries than
// [localsandbox.Limits].Files) counts as going over, under the rules of
// workspace/internal/diskquota.
//
// A resolver per thread removes a deleted thread's container and volume
// ([Resolver.RemoveThread], which agent.DeleteThread calls through
// [workspace.ThreadRemover]). An OCI runtime
// such as gVisor's runsc can be named ([Options].Runtime).
//
// Without user namespace remapping in the engine (dockerd
// --userns-remap=default) or a rootless engine, uid 0 in a container is
// the host's root; commands never run as it (uid 1000, no capabilities,
// no new privileges), but [Status] says so, and the hardening suite
// requires the remapping.
//
// # Commands
//
// Each command is an exec of /bin/sh under a small wrapper of keel's,
// which gives the command a session of its own and ends every process of
// it when the command's shell exits, when keel's time limit runs out or
// the context is cancelled (keel asks the wrapper with a second exec), or
// when the wrapper's own limit, a little longer than keel's, runs out. A
// container at its process limit cannot start that second exec: then the
// container is killed, and the next command gets a new one. Output is the
// exec's demultiplexed stream, each of stdout and stderr capped as in a
// local sandbox; stdin is written on the exec's connection. Processes
// that leave the command's session (setsid) outlive it, until the
// container stops.
//
// # Files
//
// Files go through the engine's archive API as streamed tar: a write is a
// PUT of the file (and the directories it needs, owned by the sandbox's
// user), a read a GET ([Sandbox.OpenFile] streams it). A path is resolved
// one component at a time with the archive API's stat, whose answer gives
// a link's target resolved in the container, and a path that leads out of
// /home/user, by its text or through a link a command planted, is refused
// with [workspace.ErrPathEscapes]. The engine resolves archive paths
// inside the container, so no path reaches the host. Renames, removals
// and listings have no archive call and run as short commands.
//
// # The engine
//
// [Connect] reaches the engine DOCKER_HOST names (unix:// or tcp://, TLS
// with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH) and agrees on an API
// version from 1.41 (Docker 20.10, as Debian 12 ships it) to 1.47,
// speaking the engine's HTTP API directly. [NewResolver] checks at start
// that the image and runtime are there and that a container of the
// settings runs a command, so that a missing piece is an error when keel
// starts, not at a run's first command; [Resolver.Status] is the line
// keel says at start. [BuildImage] makes the default image,
// [DefaultImage], from a static busybox with no registry; docs/docker.md
// has the recipe of a richer one.
package dockersandbox
