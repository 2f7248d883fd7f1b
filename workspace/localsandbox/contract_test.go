package localsandbox_test

import (
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/localsandbox"
)

// TestDefaultsAreTheDocumentedOnes pins each default limit, the home
// directory and the sandbox's user to their literal values, so that
// changing one is a visible decision.
func TestDefaultsAreTheDocumentedOnes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"HomeDir", localsandbox.HomeDir, "/home/user"},
		{"DefaultUID", int64(localsandbox.DefaultUID), int64(2100000000)},
		{"DefaultGID", int64(localsandbox.DefaultGID), int64(2100000000)},
		{"DefaultCommandTimeout", localsandbox.DefaultCommandTimeout, 60 * time.Second},
		{"DefaultMaxOutput", int64(localsandbox.DefaultMaxOutput), int64(1 << 20)},
		{"DefaultProcesses", int64(localsandbox.DefaultProcesses), int64(256)},
		{"DefaultMemory", int64(localsandbox.DefaultMemory), int64(1 << 30)},
		{"DefaultFileSize", int64(localsandbox.DefaultFileSize), int64(1 << 30)},
		{"DefaultDisk", int64(localsandbox.DefaultDisk), int64(2 << 30)},
		{"DefaultCPUTime", localsandbox.DefaultCPUTime, 10 * time.Minute},
	} {
		if c.got != c.want {
			t.Errorf("Got(localsandbox.%s) = %v; want %v", c.name, c.got, c.want)
		}
	}
}
