package telemetry_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/observe/telemetry"
	"github.com/keel-go/keel/server"
)

// BenchmarkGenerateText is a text generate over HTTP in a new thread
// (in-memory store, scripted model), with the telemetry off, metrics
// only, traces only (batched to an exporter that drops them) and both:
// what the seams and the observer cost a request.
func BenchmarkGenerateText(b *testing.B) {
	for _, mode := range []string{"off", "metrics", "traces", "both"} {
		b.Run(mode, func(b *testing.B) {
			var tel *telemetry.Telemetry
			opts := telemetry.Options{Metrics: mode == "metrics" || mode == "both"}
			if mode == "traces" || mode == "both" {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
				opts.TracerProvider = tp
			}
			if mode != "off" {
				var err error
				if tel, err = telemetry.New(opts); err != nil {
					b.Fatal(err)
				}
			}
			quiet := slog.New(slog.DiscardHandler)
			var mem memory.Store = memory.NewInMemory()
			cfg := server.Config{Logger: quiet}
			if tel != nil {
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
			c := hs.Client()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				body := fmt.Appendf(nil, `{"messages":"hello","memory":{"thread":"t-%d","resource":"r"}}`, i)
				resp, err := c.Post(hs.URL+"/api/agents/support/generate", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("Got(status) = %d; want 200", resp.StatusCode)
				}
			}
		})
	}
}
