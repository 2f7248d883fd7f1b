package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/observe/telemetry"
	"github.com/keel-go/keel/server"
)

// serveTelemetry is keel serve's metrics and traces: nil fields when
// they are off.
type serveTelemetry struct {
	tel     *telemetry.Telemetry
	tp      *sdktrace.TracerProvider
	metrics config.Metrics
	lines   []string
}

// loadTelemetry sets up the metrics server.metrics asks for and the
// traces the OTEL_* variables ask for.
func loadTelemetry(ctx context.Context, m config.Metrics) (*serveTelemetry, error) {
	st := &serveTelemetry{metrics: m}
	tp, err := telemetry.FromEnv(ctx)
	if err != nil {
		return nil, err
	}
	st.tp = tp
	if !m.On() && tp == nil {
		st.lines = append(st.lines, "metrics: off (server.metrics.enabled: false); traces: off (no OTEL_EXPORTER_OTLP_ENDPOINT)")
		return st, nil
	}
	opts := telemetry.Options{Metrics: m.On()}
	if tp != nil {
		opts.TracerProvider = tp
	}
	if st.tel, err = telemetry.New(opts); err != nil {
		return nil, err
	}
	if tp != nil {
		st.lines = append(st.lines, "traces: OTLP/HTTP to "+otlpEndpoint())
	} else {
		st.lines = append(st.lines, "traces: off (set OTEL_EXPORTER_OTLP_ENDPOINT to send them)")
	}
	return st, nil
}

// otlpEndpoint is where the traces go, as the exporter reads it from
// the environment.
func otlpEndpoint() string {
	return cmp.Or(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"),
		"http://localhost:4318")
}

// store returns s, timed when the telemetry is on.
func (st *serveTelemetry) store(s memory.Store) memory.Store {
	if st.tel == nil {
		return s
	}
	return st.tel.Store(s)
}

// serverConfig sets the server's Observer, and its Metrics unless they
// have an address of their own.
func (st *serveTelemetry) serverConfig(cfg *server.Config) {
	if st.tel == nil {
		return
	}
	cfg.Observer = st.tel
	if st.metrics.On() && st.metrics.Addr == "" {
		cfg.Metrics = st.tel.Handler()
	}
}

// listen starts the metrics' own listener, when they have one, and says
// where they are; stop it with the returned function.
func (st *serveTelemetry) listen(apiAddr string, auth *serveAuth, logger *slog.Logger) (stop func(), err error) {
	stop = func() {}
	switch {
	case st.tel == nil || !st.metrics.On():
		return stop, nil
	case st.metrics.Addr == "":
		how := "no token: anyone who reaches the API reads them"
		switch {
		case auth.Token != "":
			how = "with the shared token as a bearer token"
		case auth.protected():
			how = "WARNING: they need the shared token and none is set: set " + auth.TokenEnv + ", or server.metrics.addr"
		}
		st.lines = append(st.lines, fmt.Sprintf("metrics: http://%s%s (%s)", apiAddr, server.MetricsPath, how))
		return stop, nil
	}
	ln, err := net.Listen("tcp", st.metrics.Addr)
	if err != nil {
		return stop, fmt.Errorf("metrics: listen on %s: %w (choose another server.metrics.addr)", st.metrics.Addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+server.MetricsPath, st.tel.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: server.DefaultHeaderTimeout,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("keel serve: metrics listener stopped", "err", err)
		}
	}()
	st.lines = append(st.lines, fmt.Sprintf("metrics: http://%s%s (no token: keep this address where only the scraper reaches it)",
		ln.Addr(), server.MetricsPath))
	return func() { _ = hs.Close() }, nil
}

// shutdown sends the spans still held, for at most 5 s.
func (st *serveTelemetry) shutdown(logger *slog.Logger) {
	if st.tp == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := st.tp.Shutdown(ctx); err != nil {
		logger.Warn("keel serve: traces: the last spans were not sent", "err", err)
	}
}
