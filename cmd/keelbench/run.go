package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// config holds the flags.
type config struct {
	url, modelURL          string
	pid                    int
	inprocess, logs, child bool
	latencyCalls           int
	roundCalls, clients    int
	pdfCalls, warmup       int
	pdfBytes               int
	store                  string
	cpuProfile             string
	model                  modelSpec
	telemetry              telemetrySpec
	load                   loadSpec
	serverExe              string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var c config
	fs := flag.NewFlagSet("keelbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "", "drive the keel server at this loopback URL instead of starting one")
	fs.IntVar(&c.pid, "pid", 0, "process id of the server at -url, for its resident memory")
	fs.StringVar(&c.modelURL, "model-url", "", "model server of the server at -url, for the direct PDF comparison")
	fs.BoolVar(&c.inprocess, "inprocess", false, "serve keel in this process instead of a child")
	fs.BoolVar(&c.logs, "logs", false, "let the server write its request logs (to stderr)")
	fs.BoolVar(&c.child, "serve-child", false, "internal: run as the server child")
	fs.IntVar(&c.warmup, "warmup", 200, "text generates before measuring")
	fs.IntVar(&c.latencyCalls, "latency-calls", 2000, "text generates at 1 client for the latency figures")
	fs.IntVar(&c.roundCalls, "round-calls", 10000, "text generates per throughput round (two rounds)")
	fs.IntVar(&c.clients, "clients", 32, "concurrent clients of the throughput rounds")
	fs.IntVar(&c.pdfCalls, "pdf-calls", 50, "generates with a PDF, through keel and straight to the model")
	fs.IntVar(&c.pdfBytes, "pdf-bytes", 1<<20, "size of the PDF")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write the started server's CPU profile to this file")
	fs.StringVar(&c.store, "store", "sqlite", "memory of the started server: sqlite, or inmemory to measure the server without storage costs")
	fs.StringVar(&c.model.kind, "model", modelInstant, "the model server: instant (answers at once), delay (answers after -model-delay) or stream (streams at -tokens-per-second)")
	fs.DurationVar(&c.model.delay, "model-delay", 20*time.Millisecond, "how long the delay model takes to answer")
	fs.Float64Var(&c.model.tokensPerSecond, "tokens-per-second", 50, "how fast the stream model streams")
	fs.StringVar(&c.telemetry.mode, "telemetry", telemetryOff, "what the started server records: off, metrics, traces (sent over OTLP/HTTP to a receiver keelbench starts) or both")
	fs.StringVar(&c.telemetry.otlpURL, "otlp-url", "", "internal: the OTLP/HTTP receiver of the server child")
	loadClients := fs.String("load", "", "instead of the default figures, text and file generates at each of these client counts (\"8,64\"), with p50, p99 and the server's CPU")
	fs.IntVar(&c.load.calls, "load-calls", 0, "text calls of each -load phase (default 16 a client)")
	fs.IntVar(&c.load.fileCalls, "load-file-calls", 0, "file calls of each -load phase (default as -load-calls)")
	fs.StringVar(&c.serverExe, "server-exe", "", "run this keelbench binary as the server child (another build's, to compare builds with one driver)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	if c.load.clients, err = parseClients(*loadClients); err != nil {
		fmt.Fprintln(stderr, "keelbench:", err)
		return 2
	}
	if err := checkTelemetryMode(c.telemetry.mode); err != nil {
		fmt.Fprintln(stderr, "keelbench:", err)
		return 2
	}
	if err := c.defaults(fs); err != nil {
		fmt.Fprintln(stderr, "keelbench:", err)
		return 2
	}
	if c.store != "sqlite" && c.store != "inmemory" {
		fmt.Fprintf(stderr, "keelbench: -store %q: want sqlite or inmemory\n", c.store)
		return 2
	}
	if c.child {
		if err := serveChild(ctx, c.modelURL, fs.Arg(0), c.store, c.logs, c.cpuProfile, c.telemetry, stdout); err != nil {
			fmt.Fprintln(stderr, "keelbench: serve:", err)
			return 1
		}
		return 0
	}
	if err := bench(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "keelbench:", err)
		return 1
	}
	return 0
}

// streamReply is the answer of the stream model: twenty words, so that
// at 50 tokens a second a call takes 0.38 s, as a short hosted answer does.
const streamReply = "Here is a short answer of twenty words, streamed one word at a time as a hosted model streams its reply."

// defaults fills in the model's reply and the call counts a model's speed
// allows, for the flags not given: a model that takes 20 ms a call, or
// 0.4 s, cannot be called 2,000 times in a benchmark of a few seconds.
func (c *config) defaults(fs *flag.FlagSet) error {
	c.model.text = "Hello from the mock model."
	var latency, round, pdf int
	switch c.model.kind {
	case modelInstant:
		return nil
	case modelDelay:
		latency, round, pdf = 300, 4000, 50
	case modelStream:
		c.model.text = streamReply
		latency, round, pdf = 40, 800, 20
	default:
		return fmt.Errorf("-model %q: want %s, %s or %s", c.model.kind, modelInstant, modelDelay, modelStream)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, v := range map[string]struct {
		p *int
		n int
	}{"latency-calls": {&c.latencyCalls, latency}, "round-calls": {&c.roundCalls, round}, "pdf-calls": {&c.pdfCalls, pdf}, "warmup": {&c.warmup, 20}} {
		if !set[name] {
			*v.p = v.n
		}
	}
	return nil
}

// target is the server being measured and how to read its memory.
type target struct {
	url, modelURL string
	pid           int // the server's process, 0 when unknown
	rss           func() (int64, error)
	close         func()
}

func setUp(ctx context.Context, c config, stderr io.Writer) (*target, error) {
	if c.url != "" {
		if err := checkLoopback(c.url); err != nil {
			return nil, err
		}
		if c.modelURL != "" {
			if err := checkLoopback(c.modelURL); err != nil {
				return nil, err
			}
		}
		t := &target{url: strings.TrimRight(c.url, "/"), modelURL: c.modelURL, pid: c.pid, close: func() {}}
		if c.pid > 0 {
			t.rss = func() (int64, error) { return vmRSS(fmt.Sprintf("/proc/%d/status", c.pid)) }
		}
		return t, nil
	}
	model, err := startModelServer(c.model)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "keelbench-")
	if err != nil {
		model.Close()
		return nil, err
	}
	db := filepath.Join(dir, "keel.db")
	cleanup := func() { model.Close(); os.RemoveAll(dir) }
	if c.telemetry.traces() {
		col, err := startCollector()
		if err != nil {
			cleanup()
			return nil, err
		}
		c.telemetry.otlpURL = col.url
		prev := cleanup
		cleanup = func() { prev(); col.close(stderr) }
	}
	if c.inprocess {
		var logs io.Writer
		if c.logs {
			logs = stderr
		}
		ks, err := startKeel(ctx, model.URL(), db, c.store, logs, c.telemetry)
		if err != nil {
			cleanup()
			return nil, err
		}
		return &target{url: ks.url, modelURL: model.URL(), pid: os.Getpid(),
			rss:   func() (int64, error) { return vmRSS("/proc/self/status") },
			close: func() { ks.close(); cleanup() }}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		cleanup()
		return nil, err
	}
	args := []string{"-serve-child", "-model-url", model.URL(), "-store", c.store}
	if c.serverExe != "" {
		// Another build's child may predate -telemetry: name it only
		// when asked for.
		exe = c.serverExe
		if c.telemetry.mode != telemetryOff {
			args = append(args, "-telemetry", c.telemetry.mode, "-otlp-url", c.telemetry.otlpURL)
		}
	} else {
		args = append(args, "-telemetry", c.telemetry.mode, "-otlp-url", c.telemetry.otlpURL)
	}
	if c.logs {
		args = append(args, "-logs")
	}
	if c.cpuProfile != "" {
		args = append(args, "-cpuprofile", c.cpuProfile)
	}
	cmd := exec.CommandContext(ctx, exe, append(args, db)...)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cleanup()
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		cleanup()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		return nil, err
	}
	stop := func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		cleanup()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return nil, fmt.Errorf("server child did not start: %w", err)
	}
	pid := cmd.Process.Pid
	return &target{url: strings.TrimSpace(line), modelURL: model.URL(), pid: pid,
		rss:   func() (int64, error) { return vmRSS(fmt.Sprintf("/proc/%d/status", pid)) },
		close: stop}, nil
}

func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %w", raw, err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return errors.New("url " + raw + ": keelbench drives loopback servers only")
}
