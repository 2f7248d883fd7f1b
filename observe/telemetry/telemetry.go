package telemetry

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/keel-go/keel/observe"
)

// Options say what a [Telemetry] records.
type Options struct {
	// Metrics turns the Prometheus metrics on: [Telemetry.Handler] serves
	// them.
	Metrics bool
	// Registry receives the metrics; nil means a new registry holding
	// keel's metrics and the Go runtime's and the process's.
	Registry *prometheus.Registry
	// TracerProvider, when not nil, traces: a span per operation (see the
	// package documentation). [FromEnv] makes one from the OTEL_*
	// variables.
	TracerProvider trace.TracerProvider
}

// Telemetry is an observe.Observer that counts and times what keel does
// in Prometheus metrics and traces it with OpenTelemetry. It is safe for
// concurrent use.
type Telemetry struct {
	metrics  *metrics
	registry *prometheus.Registry
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	// copies: the tracer's spans copy the attributes they are given
	// (the SDK's do; another provider's might keep the slice).
	copies bool
}

// ErrNothingOn is returned by [New] when Options turn neither metrics nor
// tracing on: such a Telemetry would only cost time, so callers should
// leave the Observer nil instead.
var ErrNothingOn = errors.New("telemetry: neither metrics nor tracing is on: leave the observer nil")

// New returns a Telemetry as opts say.
func New(opts Options) (*Telemetry, error) {
	if !opts.Metrics && opts.TracerProvider == nil {
		return nil, ErrNothingOn
	}
	t := &Telemetry{prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	if opts.Metrics {
		t.registry = opts.Registry
		if t.registry == nil {
			t.registry = prometheus.NewRegistry()
			t.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		}
		m, err := newMetrics(t.registry)
		if err != nil {
			return nil, err
		}
		t.metrics = m
	}
	if opts.TracerProvider != nil {
		t.tracer = opts.TracerProvider.Tracer(instrumentation)
		_, t.copies = opts.TracerProvider.(*sdktrace.TracerProvider)
	}
	return t, nil
}

// instrumentation names keel's tracer (the spans' instrumentation scope).
const instrumentation = "github.com/keel-go/keel"

// Handler serves the metrics in Prometheus's text format; it answers 404
// when metrics are off.
func (t *Telemetry) Handler() http.Handler {
	if t.registry == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(t.registry, promhttp.HandlerOpts{})
}

// Start implements observe.Observer: it starts op's span, when tracing,
// continuing the W3C trace context (traceparent, and baggage) of an
// incoming request, and notes the time for the metrics. The span's
// attributes are all set when it ends, in one call (samplers see none:
// the standard ones look at the parent and the trace ID only).
//
// The span of an input or LLM-request hook is made only when the hook
// did something: reported a recovery, failed, or started an operation of
// its own (an upload), which is then its child. Most hooks do nothing on
// most calls, and a span for each would cost every request without
// telling anything.
func (t *Telemetry) Start(ctx context.Context, op *observe.Op) (context.Context, observe.Span) {
	s := &span{t: t, op: op, start: time.Now()}
	if t.tracer == nil {
		return ctx, s
	}
	if p, _ := ctx.Value(pendingKey{}).(*span); p != nil {
		// The first operation under a hook that has no span yet: the
		// hook's span is made now, as of its start, to be its parent.
		// The operation keeps its own context (its deadline, its values),
		// with that span in it and the hook no longer pending.
		ctx = context.WithValue(trace.ContextWithSpan(ctx, p.materialize()), pendingKey{}, (*span)(nil))
	}
	if op.Kind == observe.Processor && op.Hook != observe.HookAPIError {
		s.parent = ctx
		return context.WithValue(ctx, pendingKey{}, s), s
	}
	if op.Kind == observe.Request && op.Header != nil {
		ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(op.Header))
	}
	ctx, s.span = t.tracer.Start(ctx, spanName(op), kindOptions[spanKind(op)]...)
	return ctx, s
}

// kindOptions are the start options of a span of each kind, made once:
// a call's own variadic slice would cost each span an allocation.
var kindOptions = func() (o [trace.SpanKindConsumer + 1][]trace.SpanStartOption) {
	for k := range o {
		o[k] = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKind(k))}
	}
	return o
}()

// pendingKey marks a context under a hook whose span is not made yet.
type pendingKey struct{}

// span is one operation under way.
type span struct {
	t     *Telemetry
	op    *observe.Op
	start time.Time
	span  trace.Span

	// A pending hook's: the context its span is to be made under.
	mu     sync.Mutex
	parent context.Context
}

// materialize makes a pending hook's span, once, and returns it.
func (s *span) materialize() trace.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.span == nil {
		_, s.span = s.t.tracer.Start(s.parent, spanName(s.op), trace.WithTimestamp(s.start))
	}
	return s.span
}

func (s *span) End(err error) {
	if s.t.metrics != nil {
		s.t.metrics.record(s.op, err, time.Since(s.start))
	}
	if s.parent != nil && (err != nil || len(s.op.Recoveries) > 0) {
		s.materialize()
	}
	if s.span != nil {
		endSpan(s.span, s.op, err, s.t.copies)
	}
}
