package telemetry

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/keel-go/keel/observe"
)

// Buckets of the latency histograms, in seconds: requests, runs, model
// calls and commands run from milliseconds to minutes; store calls take
// microseconds to a second.
var (
	callBuckets  = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
	storeBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}
)

// metrics are keel's Prometheus metrics. Each latency histogram's _count
// is the number of operations by the same labels, so no counter repeats
// it. Every label takes values from a bounded set: routes are the
// server's patterns, never paths; statuses are classes (see errorClass).
type metrics struct {
	requests   *prometheus.HistogramVec // method, route, status
	runs       *prometheus.HistogramVec // agent, status
	modelCalls *prometheus.HistogramVec // provider, model, status
	tokens     *prometheus.CounterVec   // provider, model, type
	retries    *prometheus.CounterVec   // processor
	recoveries *prometheus.CounterVec   // processor, action, cause
	toolCalls  *prometheus.HistogramVec // tool, status
	commands   *prometheus.HistogramVec // status
	uploads    *prometheus.CounterVec   // status
	upBytes    prometheus.Counter
	store      *prometheus.HistogramVec // op, status
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	hist := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "keel", Name: name, Help: help, Buckets: buckets}, labels)
	}
	count := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "keel", Name: name, Help: help}, labels)
	}
	m := &metrics{
		requests: hist("http_request_duration_seconds", "HTTP requests by method, route (path template) and the status the client saw (499: it went away first).",
			callBuckets, "method", "route", "status"),
		runs: hist("run_duration_seconds", "Agent runs (generate and stream) by agent and outcome.", callBuckets, "agent", "status"),
		modelCalls: hist("model_call_duration_seconds", "Model calls (each attempt) by provider, model and outcome: ok, the provider's HTTP status, timeout, canceled, unsupported, no-answer or error.",
			callBuckets, "provider", "model", "status"),
		tokens:     count("model_tokens_total", "Tokens of model calls by provider, model and type (input, output).", "provider", "model", "type"),
		retries:    count("model_retries_total", "Failed model calls a processor decided to try again, by processor.", "processor"),
		recoveries: count("recoveries_total", "What processors did to keep runs going, by processor, action and cause (none: acted on its own rule).", "processor", "action", "cause"),
		toolCalls:  hist("tool_call_duration_seconds", "Tool calls by tool and outcome (ok, error: the model was shown a failure).", callBuckets, "tool", "status"),
		commands: hist("sandbox_command_duration_seconds", "Sandbox commands by outcome: ok (exit 0), nonzero, timeout, canceled or error (could not run).",
			callBuckets, "status"),
		uploads: count("sandbox_uploads_total", "Files put in sandboxes by outcome: written, present (already there) or error.", "status"),
		upBytes: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "keel", Name: "sandbox_upload_bytes_total",
			Help: "Bytes of the files written into sandboxes."}),
		store: hist("store_duration_seconds", "Memory store calls by operation and outcome (ok, not-found, conflict, canceled, timeout, error).",
			storeBuckets, "op", "status"),
	}
	for _, c := range []prometheus.Collector{m.requests, m.runs, m.modelCalls, m.tokens, m.retries, m.recoveries,
		m.toolCalls, m.commands, m.uploads, m.upBytes, m.store} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// record counts op, ended with err after d.
func (m *metrics) record(op *observe.Op, err error, d time.Duration) {
	secs := d.Seconds()
	switch op.Kind {
	case observe.Request:
		route := op.Route
		if route == "" {
			route = "none"
		}
		m.requests.WithLabelValues(op.Method, route, strconv.Itoa(op.Status)).Observe(secs)
	case observe.Run:
		m.runs.WithLabelValues(op.Agent, errorClass(err)).Observe(secs)
	case observe.ModelCall:
		m.modelCalls.WithLabelValues(op.Provider, op.Model, errorClass(err)).Observe(secs)
		if op.Usage.InputTokens > 0 {
			m.tokens.WithLabelValues(op.Provider, op.Model, "input").Add(float64(op.Usage.InputTokens))
		}
		if op.Usage.OutputTokens > 0 {
			m.tokens.WithLabelValues(op.Provider, op.Model, "output").Add(float64(op.Usage.OutputTokens))
		}
	case observe.Processor:
		if op.Retry {
			m.retries.WithLabelValues(op.Decider).Inc()
		}
		for _, r := range op.Recoveries {
			m.recoveries.WithLabelValues(r.Processor, r.Action, r.Cause).Inc()
		}
	case observe.ToolCall:
		status := "ok"
		if op.ToolFailed {
			status = "error"
		}
		m.toolCalls.WithLabelValues(op.Tool, status).Observe(secs)
	case observe.Command:
		status := errorClass(err)
		if err == nil && op.ExitCode != 0 {
			status = "nonzero"
		}
		m.commands.WithLabelValues(status).Observe(secs)
	case observe.Upload:
		switch {
		case err != nil:
			m.uploads.WithLabelValues("error").Inc()
		case op.Written:
			m.uploads.WithLabelValues("written").Inc()
			m.upBytes.Add(float64(op.Size))
		default:
			m.uploads.WithLabelValues("present").Inc()
		}
	}
}
