package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadSpec is the -load mode: text and file generates at each number of
// concurrent clients, with the latency of every call, instead of the
// default figures. It is what a piece of machinery is judged by against a
// model that takes time to answer: a saving of a millisecond matters only
// if it shows at the clients and model latency a deployment has.
type loadSpec struct {
	clients   []int
	calls     int // text calls per client count; 0: 16 a client
	fileCalls int // file calls per client count; 0: as calls
}

func parseClients(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-load %q: want client counts such as 8,64", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// loadResult is one load phase's figures.
type loadResult struct {
	calls    int
	rps      float64
	p50, p99 time.Duration
	cpu      time.Duration // the server's CPU time over the phase, when its pid is known
	rss, hwm int64         // the server's VmRSS after the phase and its peak so far
}

// load runs the -load phases and prints a line for each.
func load(ctx context.Context, d *driver, c config, t *target, out io.Writer) error {
	fileBody, _ := pdfBodies(d, c.pdfBytes)
	kinds := []struct {
		name  string
		body  func() []byte
		calls int
	}{{"text", d.textBody, c.load.calls}, {fmt.Sprintf("file %d B", c.pdfBytes), fileBody, cmp.Or(c.load.fileCalls, c.load.calls)}}
	for _, clients := range c.load.clients {
		for _, k := range kinds {
			r, err := d.loadPhase(ctx, cmp.Or(k.calls, 16*clients), clients, k.body, t)
			if err != nil {
				return fmt.Errorf("load %s, %d clients: %w", k.name, clients, err)
			}
			fmt.Fprintf(out, "load %s, %d clients, %d calls: %.1f requests/s  p50 %s  p99 %s", k.name, clients, r.calls, r.rps, ms(r.p50), ms(r.p99))
			if t.pid > 0 {
				fmt.Fprintf(out, "  server CPU %s/call  VmRSS %.1f MiB  VmHWM %.1f MiB", ms(r.cpu/time.Duration(r.calls)), float64(r.rss)/(1<<20), float64(r.hwm)/(1<<20))
			}
			fmt.Fprintln(out)
		}
	}
	return nil
}

// loadPhase sends n generates from clients goroutines, timing each.
func (d *driver) loadPhase(ctx context.Context, n, clients int, body func() []byte, t *target) (loadResult, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	lat := make([]time.Duration, 0, n)
	cpu0, _ := cpuTime(t.pid)
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				b := body()
				t0 := time.Now()
				_, err := d.post(ctx, d.generateURL(), b)
				el := time.Since(t0)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				lat = append(lat, el)
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return loadResult{}, firstErr
	}
	r := loadResult{calls: n, rps: float64(n) / time.Since(start).Seconds(), p50: percentile(lat, 50), p99: percentile(lat, 99)}
	if t.pid > 0 {
		cpu1, err := cpuTime(t.pid)
		if err != nil {
			return r, err
		}
		r.cpu = cpu1 - cpu0
		status := fmt.Sprintf("/proc/%d/status", t.pid)
		if r.rss, err = vmRSS(status); err != nil {
			return r, err
		}
		if r.hwm, err = statusKB(status, "VmHWM:"); err != nil {
			return r, err
		}
	}
	return r, nil
}

// cpuTime reads the user and system CPU time of process pid from
// /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s).
func cpuTime(pid int) (time.Duration, error) {
	if pid <= 0 {
		return 0, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields
	// from after it.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
