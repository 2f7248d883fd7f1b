package main

import (
	"os"
	"slices"
	"testing"
)

func TestParseClients(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"", nil, false},
		{"8", []int{8}, false},
		{"8, 64", []int{8, 64}, false},
		{"8,0", nil, true},
		{"8,x", nil, true},
		{"-1", nil, true},
	}
	for _, tt := range tests {
		got, err := parseClients(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("Got(parseClients(%q)) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestCPUTime reads this process's own CPU time, which a busy loop moves.
func TestCPUTime(t *testing.T) {
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := range 300_000_000 {
		x ^= i
	}
	after, err := cpuTime(os.Getpid())
	if err != nil || after <= before {
		t.Errorf("Got(cpuTime after a busy loop) = %v, %v; want more than %v (x %d)", after, err, before, x)
	}
	if got, err := cpuTime(0); got != 0 || err != nil {
		t.Errorf("Got(cpuTime(0)) = %v, %v; want 0, nil: no process named", got, err)
	}
	if _, err := cpuTime(1 << 30); err == nil {
		t.Error("Got(cpuTime of no such process) = nil error; want one")
	}
}

func TestStatusKB(t *testing.T) {
	p := t.TempDir() + "/status"
	if err := os.WriteFile(p, []byte("Name:\tkeel\nVmHWM:\t   40960 kB\nVmRSS:\t   31980 kB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := statusKB(p, "VmHWM:"); err != nil || got != 40960<<10 {
		t.Errorf("Got(statusKB VmHWM) = %d, %v; want %d", got, err, 40960<<10)
	}
	if _, err := statusKB(p, "VmSwap:"); err == nil {
		t.Error("Got(statusKB of a missing field) = nil error; want one")
	}
}
