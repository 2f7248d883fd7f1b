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
// ([CommandOnly]).
//
// Commands are expected to run with a POSIX sh and coreutils (sleep, head,
// base64, wc, ln).
package sandboxtest
