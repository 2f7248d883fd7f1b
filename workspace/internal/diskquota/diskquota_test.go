package diskquota_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/diskquota"
)

func TestRoom(t *testing.T) {
	for _, tc := range []struct {
		quota, used, n int64
		err            error
		full           bool
	}{
		{-1, 1 << 40, 1 << 40, nil, false},
		{100, 40, 60, nil, false},
		{100, 40, 61, nil, true},
		{100, 0, 0, errors.New("du failed"), true},
	} {
		err := diskquota.Room(tc.quota, tc.used, tc.n, tc.err)
		if errors.Is(err, workspace.ErrQuotaExceeded) != tc.full {
			t.Errorf("Got(Room(%d, %d, %d, %v)) = %v; want full %v", tc.quota, tc.used, tc.n, tc.err, err, tc.full)
		}
	}
}

// TestWatch: the watch calls over once the limit is passed, and stops.
func TestWatch(t *testing.T) {
	var used atomic.Int64
	over := make(chan struct{}, 2)
	w := diskquota.Start(func() (int64, error) { return used.Load(), nil }, func() int64 { return 10 }, func() { over <- struct{}{} })
	time.Sleep(diskquota.MinInterval + 200*time.Millisecond)
	select {
	case <-over:
		t.Fatal("Got(over) under the limit; want none")
	default:
	}
	used.Store(11)
	select {
	case <-over:
	case <-time.After(5 * time.Second):
		t.Fatal("Got no over within 5 s of passing the limit; want one")
	}
	if !w.Stop() {
		t.Error("Got(Stop) = false; want true after over")
	}
}

func TestNote(t *testing.T) {
	for _, tc := range []struct {
		quota, used int64
		err         error
		over        bool
		want        string
	}{
		{-1, 5, nil, true, ""},
		{100, 50, nil, false, ""},
		{1 << 20, 3 << 20, nil, true, "x: the command was ended: it took the sandbox over its 1 MiB disk quota (3 MiB used)"},
		{1 << 20, 3 << 20, nil, false, "x: the sandbox is over its 1 MiB disk quota (3 MiB used)"},
		{1 << 20, 0, errors.New("boom"), false, "x: the sandbox's disk use cannot be measured (boom)"},
	} {
		got := diskquota.Note("x", tc.quota, tc.used, tc.err, tc.over)
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("Got(Note) = %q; want %q...", got, tc.want)
		}
	}
	if got := diskquota.Size(1536 << 20); got != "1.5 GiB" {
		t.Errorf("Got(Size) = %q; want 1.5 GiB", got)
	}
}
