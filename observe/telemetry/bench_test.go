package telemetry_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/observe/telemetry"
	"github.com/keel-go/keel/server"
)

// benchModes are the telemetry settings the benchmarks compare.
var benchModes = []string{"off", "metrics", "traces", "both"}

// benchServer serves one agent on a scripted model and in-memory storage
// with the telemetry mode says: traces batched over OTLP/HTTP to a local
// receiver that reads and drops each export, as keel serve sends them.
func benchServer(b *testing.B, mode string) *httptest.Server {
	b.Helper()
	opts := telemetry.Options{Metrics: mode == "metrics" || mode == "both"}
	if mode == "traces" || mode == "both" {
		collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/x-protobuf")
		}))
		b.Cleanup(collector.Close)
		exp, err := telemetry.NewExporter(telemetry.ExporterConfig{URL: collector.URL + "/v1/traces"})
		if err != nil {
			b.Fatal(err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
		b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		opts.TracerProvider = tp
	}
	quiet := slog.New(slog.DiscardHandler)
	var mem memory.Store = memory.NewInMemory()
	cfg := server.Config{Logger: quiet}
	if mode != "off" {
		tel, err := telemetry.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		mem = tel.Store(mem)
		cfg.Observer, cfg.Metrics = tel, tel.Handler()
	}
	model := keeltest.NewModel(keeltest.Reply{Text: "Hello from the model."})
	model.RepeatLast, model.NoRecord = true, true
	a, err := agent.New(agent.Config{ID: "support", Instructions: "You are helpful.", Model: model, Memory: mem, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	cfg.Agents, cfg.Memory = []*agent.Agent{a}, mem
	srv, err := server.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	return hs
}

// postText sends a text generate in thread n and fails b unless it is 200.
func postText(b *testing.B, hs *httptest.Server, n int) {
	body := fmt.Appendf(nil, `{"messages":"hello","memory":{"thread":"t-%d","resource":"r"}}`, n)
	resp, err := hs.Client().Post(hs.URL+"/api/agents/support/generate", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("Got(status) = %d; want 200", resp.StatusCode)
	}
}

// BenchmarkGenerateText is a text generate over HTTP in a new thread
// (in-memory store, scripted model), with the telemetry off, metrics
// only, traces only and both: what the seams and the observer cost a
// request.
func BenchmarkGenerateText(b *testing.B) {
	for _, mode := range benchModes {
		b.Run(mode, func(b *testing.B) {
			hs := benchServer(b, mode)
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			i := 0
			for b.Loop() {
				i++
				postText(b, hs, i)
			}
			// The process's CPU time per request (client, server and the
			// exporter's goroutine).
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(i), "cpu-µs/op")
		})
	}
}

// BenchmarkTelemetryOverhead sends each iteration one text generate to
// each of four servers (telemetry off, metrics, traces, both), in an
// order that rotates, and reports each one's p50 and its ratio to the
// p50 with telemetry off. Interleaving the requests one by one puts the
// four under the same load, which on a shared machine moves far more
// than what is measured.
func BenchmarkTelemetryOverhead(b *testing.B) {
	servers := make([]*httptest.Server, len(benchModes))
	for i, mode := range benchModes {
		servers[i] = benchServer(b, mode)
		postText(b, servers[i], -1) // connections and first-use costs out of the way
	}
	times := make([][]time.Duration, len(benchModes))
	n := 0
	for b.Loop() {
		n++
		for k := range benchModes {
			i := (k + n) % len(benchModes)
			start := time.Now()
			postText(b, servers[i], n)
			times[i] = append(times[i], time.Since(start))
		}
	}
	p50 := make([]time.Duration, len(benchModes))
	for i, ts := range times {
		slices.Sort(ts)
		p50[i] = ts[len(ts)/2]
	}
	for i, mode := range benchModes {
		b.ReportMetric(float64(p50[i].Nanoseconds())/1e3, mode+"-p50-µs")
		if i > 0 {
			b.ReportMetric(float64(p50[i])/float64(p50[0]), mode+"/off")
		}
	}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkModelCallOp is one model call's Start and End: what one
// operation costs, with metrics, with traces (batched to an exporter that
// drops them, so the export's own cost is left out) and both.
func BenchmarkModelCallOp(b *testing.B) {
	for _, mode := range []string{"metrics", "traces", "both"} {
		b.Run(mode, func(b *testing.B) {
			opts := telemetry.Options{Metrics: mode != "traces"}
			if mode != "metrics" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
				opts.TracerProvider = tp
			}
			tel, err := telemetry.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				op := &observe.Op{Kind: observe.ModelCall, Agent: "support", RunID: "run_1", Provider: "google", Model: "gemini-2.5-flash",
					Step: 0, Attempt: 1}
				_, span := tel.Start(ctx, op)
				op.ResponseModel, op.ResponseID, op.FinishReason = "gemini-2.5-flash", "resp-1", keel.FinishStop
				op.Usage = keel.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}
				span.End(nil)
			}
		})
	}
}
