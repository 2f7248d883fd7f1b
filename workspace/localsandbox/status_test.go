package localsandbox_test

import (
	"os"
	"strings"
	"testing"

	"github.com/keel-go/keel/workspace/localsandbox"
)

// The line keel prints at start says how the disk quota is enforced and
// that a seccomp filter guards commands: measured by default, a file
// system of its own with OwnFilesystem where root may mount.
func TestStatusSaysQuotaAndSeccomp(t *testing.T) {
	requireBwrap(t)
	root := t.TempDir()
	for _, tc := range []struct {
		name string
		opts localsandbox.Options
		disk localsandbox.Mechanism
	}{
		{"default", localsandbox.Options{}, localsandbox.QuotaCheck},
		{"own file system", localsandbox.Options{OwnFilesystem: true}, localsandbox.OwnFilesystem},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := localsandbox.Check(root, tc.opts)
			want := tc.disk
			if tc.disk == localsandbox.OwnFilesystem && os.Geteuid() != 0 {
				want = localsandbox.QuotaCheck // only root mounts
			}
			line := st.String()
			if st.Enforcement.Disk != want || !strings.Contains(line, string(want)) || !strings.Contains(line, "100000 files") {
				t.Errorf("Got(status) %q; want the disk %q and its file limit", line, want)
			}
			if st.SeccompBlocked != localsandbox.BlockedSyscalls() || st.SeccompBlocked < 30 ||
				!strings.Contains(line, "a seccomp filter refuses") || st.Warning() != "" {
				t.Errorf("Got(status) %q, warning %q; want the seccomp filter on and no warning", line, st.Warning())
			}
		})
	}
}
