package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/keel-go/keel/observe/telemetry"
)

// The -telemetry modes: what the server records, as keel serve does with
// server.metrics and the OTEL_* variables.
const (
	telemetryOff     = "off"
	telemetryMetrics = "metrics"
	telemetryTraces  = "traces"
	telemetryBoth    = "both"
)

// telemetrySpec is what the server under test records, and where its
// spans go.
type telemetrySpec struct {
	mode    string
	otlpURL string
}

func (s telemetrySpec) traces() bool { return s.mode == telemetryTraces || s.mode == telemetryBoth }

func checkTelemetryMode(mode string) error {
	switch mode {
	case telemetryOff, telemetryMetrics, telemetryTraces, telemetryBoth:
		return nil
	}
	return fmt.Errorf("-telemetry %q: want %s, %s, %s or %s", mode, telemetryOff, telemetryMetrics, telemetryTraces, telemetryBoth)
}

// newTelemetry is the server's observer as spec says (nil when off),
// exporting spans in batches over OTLP/HTTP to spec.otlpURL, as keel
// serve's does; stop sends what is left.
func newTelemetry(ctx context.Context, spec telemetrySpec) (tel *telemetry.Telemetry, stop func(), err error) {
	stop = func() {}
	if spec.mode == telemetryOff || spec.mode == "" {
		return nil, stop, nil
	}
	opts := telemetry.Options{Metrics: spec.mode == telemetryMetrics || spec.mode == telemetryBoth}
	if spec.traces() {
		exp, err := telemetry.NewExporter(telemetry.ExporterConfig{URL: spec.otlpURL + "/v1/traces"})
		if err != nil {
			return nil, stop, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
		opts.TracerProvider = tp
		stop = func() { _ = tp.Shutdown(context.Background()) }
	}
	tel, err = telemetry.New(opts)
	return tel, stop, err
}

// collector is an OTLP/HTTP receiver that reads each export and answers
// it, as a collector would, and counts them.
type collector struct {
	srv            *http.Server
	url            string
	exports, bytes atomic.Int64
}

func startCollector() (*collector, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &collector{url: "http://" + ln.Addr().String()}
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		c.exports.Add(1)
		c.bytes.Add(n)
		w.Header().Set("Content-Type", "application/x-protobuf")
	})}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

func (c *collector) close(w io.Writer) {
	_ = c.srv.Close()
	fmt.Fprintf(w, "OTLP receiver: %d exports, %d bytes\n", c.exports.Load(), c.bytes.Load())
}
