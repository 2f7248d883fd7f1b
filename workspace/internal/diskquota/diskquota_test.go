package diskquota_test

import (
	"context"
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

func TestLimit(t *testing.T) {
	for _, tc := range []struct {
		quota, before int64
		err           error
		want          int64
	}{
		{100, 40, nil, 100},
		{100, 140, nil, 140},
		{100, 140, errors.New("too deep"), 100},
	} {
		if got := diskquota.Limit(tc.quota, tc.before, tc.err); got != tc.want {
			t.Errorf("Got(Limit(%d, %d, %v)) = %d; want %d", tc.quota, tc.before, tc.err, got, tc.want)
		}
	}
}

// TestWatch: the watch calls over once the limit is passed, or once a
// measurement fails, and stops.
func TestWatch(t *testing.T) {
	boom := errors.New("too many files")
	for _, tc := range []struct {
		name       string
		used       int64
		err        error
		wantFailed error
	}{
		{"Over", 11, nil, nil},
		{"MeasurementFails", 0, boom, boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var used atomic.Int64
			var failing atomic.Bool
			over := make(chan struct{}, 2)
			measure := func(context.Context) (int64, error) {
				if failing.Load() {
					return 0, tc.err
				}
				return used.Load(), nil
			}
			w := diskquota.Start(measure, func() int64 { return 10 }, func() { over <- struct{}{} })
			time.Sleep(3 * diskquota.Interval)
			select {
			case <-over:
				t.Fatal("Got(over) under the limit; want none")
			default:
			}
			used.Store(tc.used)
			failing.Store(tc.err != nil)
			select {
			case <-over:
			case <-time.After(5 * time.Second):
				t.Fatal("Got no over within 5 s; want one")
			}
			gotOver, failed := w.Stop()
			if !gotOver || !errors.Is(failed, tc.wantFailed) || (tc.wantFailed == nil) != (failed == nil) {
				t.Errorf("Got(Stop) = %v, %v; want true, %v", gotOver, failed, tc.wantFailed)
			}
		})
	}
}

// TestWatchStopCancels: Stop cancels a measurement under way, which is
// not taken for a failure, and does not wait for it to run its course.
func TestWatchStopCancels(t *testing.T) {
	started := make(chan struct{}, 1)
	measure := func(ctx context.Context) (int64, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return 0, ctx.Err()
	}
	w := diskquota.Start(measure, func() int64 { return 10 }, func() { t.Error("Got(over) from a cancelled measurement; want none") })
	<-started
	begin := time.Now()
	over, failed := w.Stop()
	if over || failed != nil || time.Since(begin) > time.Second {
		t.Errorf("Got(Stop) = %v, %v after %v; want false, nil at once", over, failed, time.Since(begin))
	}
}

func TestNote(t *testing.T) {
	for _, tc := range []struct {
		quota, used int64
		err         error
		over        bool
		failed      error
		want        string
	}{
		{-1, 5, nil, true, nil, ""},
		{100, 50, nil, false, nil, ""},
		{1 << 20, 3 << 20, nil, true, nil, "x: the command was ended: it took the sandbox over its 1 MiB disk quota (3 MiB used)"},
		{1 << 20, 3 << 20, nil, false, nil, "x: the sandbox is over its 1 MiB disk quota (3 MiB used)"},
		{1 << 20, 0, errors.New("boom"), false, nil, "x: the sandbox's disk use cannot be measured (boom)"},
		{1 << 20, 0, nil, true, errors.New("too deep"), "x: the command was ended: the sandbox's disk use cannot be measured (too deep)"},
	} {
		got := diskquota.Note("x", tc.quota, tc.used, tc.err, tc.over, tc.failed)
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("Got(Note) = %q; want %q...", got, tc.want)
		}
	}
	if got := diskquota.Size(1536 << 20); got != "1.5 GiB" {
		t.Errorf("Got(Size) = %q; want 1.5 GiB", got)
	}
}
