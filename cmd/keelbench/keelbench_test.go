package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := func(ms ...int) []time.Duration {
		out := make([]time.Duration, len(ms))
		for i, m := range ms {
			out[i] = time.Duration(m) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{ds(5, 1, 3, 2, 4), 50, 3 * time.Millisecond},
		{ds(5, 1, 3, 2, 4), 90, 5 * time.Millisecond},
		{ds(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{ds(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{ds(7), 50, 7 * time.Millisecond},
		{nil, 50, 0},
	}
	for _, tt := range tests {
		if got := percentile(tt.in, tt.p); got != tt.want {
			t.Errorf("Got(percentile(%v, %v)) = %v; want %v", tt.in, tt.p, got, tt.want)
		}
	}
}

func TestVmRSS(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := vmRSS(write("ok", "Name:\tkeel\nVmPeak:\t 99 kB\nVmRSS:\t   31980 kB\nThreads: 9\n"))
	if err != nil || got != 31980<<10 {
		t.Errorf("Got(vmRSS) = %d, %v; want %d", got, err, 31980<<10)
	}
	for name, s := range map[string]string{"none": "Name:\tkeel\n", "bad unit": "VmRSS:\t12 MB\n", "bad number": "VmRSS:\tx kB\n"} {
		if _, err := vmRSS(write(name, s)); err == nil {
			t.Errorf("Got(vmRSS of %s) = nil error; want one", name)
		}
	}
	if self, err := vmRSS("/proc/self/status"); err != nil || self <= 0 {
		t.Errorf("Got(vmRSS of this process) = %d, %v; want a size", self, err)
	}
}

func TestCheckLoopback(t *testing.T) {
	for u, ok := range map[string]bool{
		"http://127.0.0.1:4111": true, "http://localhost:4111": true, "http://[::1]:4111": true,
		"http://10.0.0.2:4111": false, "https://example.com": false,
	} {
		if err := checkLoopback(u); (err == nil) != ok {
			t.Errorf("Got(checkLoopback(%s)) = %v; want ok %v", u, err, ok)
		}
	}
}

// A small run against an in-process server prints every figure.
func TestRunInProcess(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-inprocess", "-warmup", "5", "-latency-calls", "20", "-round-calls", "40",
		"-clients", "4", "-pdf-calls", "3", "-pdf-bytes", "65536"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("Got(run) = %d, stderr %q; want 0", code, errOut.String())
	}
	for _, re := range []string{
		`text generate, 1 client, 20 calls: p50 [0-9.]+ ms  p90 [0-9.]+ ms  p99 [0-9.]+ ms`,
		`text generate, 4 clients, round 1 of 40 calls: [0-9]+ requests/s; server VmRSS [0-9.]+ MiB`,
		`text generate, 4 clients, round 2 of 40 calls: [0-9]+ requests/s; server VmRSS [0-9.]+ MiB`,
		`65536 byte PDF through keel, 3 calls: p50 [0-9.]+ ms, response [0-9]+ bytes`,
		`same PDF straight to the model server: p50 [0-9.]+ ms; keel/direct [0-9.]+x`,
		`same PDF through a server that only forwards it: p50 [0-9.]+ ms; forwarder/direct [0-9.]+x, keel/forwarder [0-9.]+x`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("Got(output) = %q; want a line matching %q", out.String(), re)
		}
	}
	if m := regexp.MustCompile(`response ([0-9]+) bytes`).FindStringSubmatch(out.String()); m == nil || len(m[1]) > 5 {
		t.Errorf("Got(PDF response size) = %v; want it small, the file not echoed", m)
	}
	if strings.Contains(errOut.String(), "error") {
		t.Errorf("Got(stderr) = %q; want no errors", errOut.String())
	}
}

// TestForwarder checks the reference server: it passes the request's path
// and body to its target and the target's answer back.
func TestForwarder(t *testing.T) {
	var gotPath, gotBody string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotPath, gotBody = r.URL.Path, string(b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer target.Close()
	fw, err := startForwarder(target.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	body := strings.Repeat("x", 100_000)
	resp, err := http.Post(fw.URL()+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusTeapot || string(answer) != `{"ok":true}` || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Got(answer) = %d %q %q; want the target's", resp.StatusCode, answer, resp.Header.Get("Content-Type"))
	}
	if gotPath != "/v1beta/models/m:generateContent" || gotBody != body {
		t.Errorf("Got(forwarded) = %q, %d bytes; want the path and the %d bytes sent", gotPath, len(gotBody), len(body))
	}
}

func TestRunRejectsRemoteURL(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-url", "http://192.0.2.1:4111"}, &out, &errOut); code == 0 ||
		!strings.Contains(errOut.String(), "loopback") {
		t.Errorf("Got(run -url remote) = %d, %q; want a failure naming loopback", code, errOut.String())
	}
}

func TestRunStoreFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-store", "redis"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "sqlite or inmemory") {
		t.Errorf("Got(run -store redis) = %d, %q; want 2 naming the choices", code, errOut.String())
	}
	out.Reset()
	code := run(context.Background(), []string{"-inprocess", "-store", "inmemory", "-warmup", "1", "-latency-calls", "3",
		"-round-calls", "4", "-clients", "2", "-pdf-calls", "1", "-pdf-bytes", "1024"}, &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "inmemory memory") {
		t.Errorf("Got(run -store inmemory) = %d, %q; want a run on in-memory storage", code, out.String())
	}
}
