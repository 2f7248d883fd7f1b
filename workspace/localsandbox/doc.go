// Package localsandbox keeps an agent's sandbox in a directory on this
// machine and runs its commands inside bubblewrap (bwrap).
//
// # Isolation
//
// A command runs as sh -c inside bwrap with every namespace unshared (so no
// network but its own loopback, its own process tree, no host IPC), all
// capabilities dropped, a new session, and a file system made of: /usr and
// the /bin, /lib... links read-only, a few files of /etc read-only, a fresh
// /tmp, /proc and /dev, and the sandbox's directory read-write at
// /home/user, where it starts. Nothing else of the host is visible, and the
// host's environment variables never reach it. Each command has a time
// limit and a cap on the output kept; on timeout or cancellation the whole
// process tree is killed.
//
// Whether bwrap works is probed once per process. When it cannot run, [New]
// fails with an [*IsolationError] that says why, unless
// [Options].AllowUnisolated is set: then commands run with plain sh -c in
// the directory, see the whole machine, and a warning is logged.
//
// # Files
//
// The sandbox's file operations ([Sandbox.WriteFile], [Sandbox.ReadFile]...)
// work on the host side through os.Root: a path that is absolute, holds
// "..", or passes through a symbolic link leading out of the directory
// (such as one a command planted) fails with an error wrapping
// [workspace.ErrPathEscapes]. Absolute symbolic links are refused even
// when, seen from inside, they point into /home/user.
//
// # Resolution
//
// [NewResolver] gives each run a sandbox: one per resource (the default,
// so different users never share files), one per thread, or one shared by
// all. Directory names come from [DirName], which no two IDs share.
package localsandbox
