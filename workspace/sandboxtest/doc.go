// Package sandboxtest is the conformance suite every
// [workspace.Sandbox] implementation passes.
//
// # Use
//
// An implementation's test calls [Run] with a function that returns a
// fresh, empty sandbox:
//
//	func TestConformance(t *testing.T) {
//		sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox {
//			sb, err := localsandbox.New(t.TempDir(), localsandbox.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			return sb
//		})
//	}
//
// # What is checked
//
// Each capability the sandbox has is checked; checks for a capability it
// lacks are skipped with the reason. Files: exact bytes written and read
// back, Stat, Rename, Remove, sorted ReadDir, and paths that leave the
// sandbox ("../", absolute paths, symbolic links planted by a command)
// refused with [workspace.ErrPathEscapes]. Commands: exit codes, stdout,
// stderr, stdin, the time limit, cancellation and timeout killing a
// background grandchild, and output beyond the cap dropped. Uploads:
// several concurrent [workspace.Upload] calls of one file end with one
// intact file, through the write capability and through commands alone
// ([CommandOnly]). Removing trees ([workspace.TreeRemover]): a thread's
// uploads go and the others stay, missing paths are not an error, and
// paths that leave the sandbox, directly or through a planted link, are
// refused. Special files: a FIFO a command made is refused at once by
// every file operation (never waited on), [workspace.FileOpener] follows
// no link, and reading 16 bytes of a 1 GiB sparse file allocates no more
// than 16 MiB.
//
// Commands are expected to run with a POSIX sh and coreutils (sleep, head,
// base64, wc, ln).
//
// # Hardening
//
// [RunHardened] checks what keeps a sandbox's commands off the host: that
// nothing kernel-wide is writable, that the host's root is not mapped
// into the sandbox, that the host path is not visible in any process's
// command line or environment nor in the mounts, and that processes,
// memory, file size, disk and CPU time are limited, under the defaults and
// under lower and higher settings. The disk quota must hold against the
// three ways past it a measured quota once had (fallocate bursts, a tree
// deeper than PATH_MAX, more files than allowed): what the sandbox holds
// stays within its quota and one file. The syscalls container runtimes
// refuse must fail inside (a probe built with the go command calls each,
// see [SeccompProbe]) while ordinary commands work; and with the test
// process a child subreaper, 50 commands must leave no zombie behind. It
// is meant to run as root, as CI does.
//
// # Helpers
//
// [ReachableTempDir] gives a test a temporary directory that the
// dedicated user of a local sandbox run by root can reach.
package sandboxtest
