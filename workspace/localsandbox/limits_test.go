package localsandbox_test

import (
	"testing"
	"time"

	"github.com/keel-go/keel/workspace/localsandbox"
)

func TestLimitsWithDefaults(t *testing.T) {
	defaults := localsandbox.Limits{
		Processes: localsandbox.DefaultProcesses,
		Memory:    localsandbox.DefaultMemory,
		FileSize:  localsandbox.DefaultFileSize,
		Disk:      localsandbox.DefaultDisk,
		Files:     localsandbox.DefaultFiles,
		CPUTime:   localsandbox.DefaultCPUTime,
	}
	for _, tc := range []struct {
		name string
		in   localsandbox.Limits
		want localsandbox.Limits
	}{
		{"ZeroIsEveryDefault", localsandbox.Limits{}, defaults},
		{"SetFieldsKept", localsandbox.Limits{Memory: 64 << 20, Disk: -1, CPUTime: time.Second},
			localsandbox.Limits{Processes: localsandbox.DefaultProcesses, Memory: 64 << 20, FileSize: localsandbox.DefaultFileSize,
				Disk: -1, Files: localsandbox.DefaultFiles, CPUTime: time.Second}},
		{"AllSetUnchanged", localsandbox.Limits{Processes: 1, Memory: 2, FileSize: 3, Disk: 4, Files: 5, CPUTime: 6},
			localsandbox.Limits{Processes: 1, Memory: 2, FileSize: 3, Disk: 4, Files: 5, CPUTime: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.WithDefaults(); got != tc.want {
				t.Errorf("Got(%+v.WithDefaults()) = %+v; want %+v", tc.in, got, tc.want)
			}
		})
	}
}
