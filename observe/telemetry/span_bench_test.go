package telemetry_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/observe/telemetry"
)

// spanCase is one kind of span keel makes: start starts its op as the
// code that reports it does, end fills the end fields and ends it.
type spanCase struct {
	name  string
	spans int // spans one iteration makes
	run   func(ctx context.Context, tel *telemetry.Telemetry)
}

var errRefused = &keel.APICallError{StatusCode: 400, Message: "unsupported mime type"}

// keelSpans are the spans of a text generate, each alone (under a request
// span, as they are in a trace), the whole generate, and the spans a
// refused file and a tool call add.
var keelSpans = []spanCase{
	{"request", 1, func(ctx context.Context, tel *telemetry.Telemetry) {
		op := pooled(observe.Op{Kind: observe.Request, Method: "POST", Header: benchHeader})
		_, s := tel.Start(ctx, op)
		op.Route, op.Status = "/api/agents/{id}/generate", 200
		s.End(nil)
		observe.ReleaseOp(op)
	}},
	{"run", 1, func(ctx context.Context, tel *telemetry.Telemetry) { _, st := runStart(ctx, tel); st.end() }},
	{"step", 1, func(ctx context.Context, tel *telemetry.Telemetry) { _, st := stepStart(ctx, tel); st.end() }},
	{"model-call", 1, func(ctx context.Context, tel *telemetry.Telemetry) { modelCallOp(ctx, tel, nil) }},
	{"model-call-refused", 1, func(ctx context.Context, tel *telemetry.Telemetry) { modelCallOp(ctx, tel, errRefused) }},
	{"api-error-hook", 1, func(ctx context.Context, tel *telemetry.Telemetry) {
		op := &observe.Op{Kind: observe.Processor, Agent: "support", RunID: "run_01JD8X", Hook: observe.HookAPIError, Step: 0}
		_, s := tel.Start(ctx, op)
		op.Retry, op.Decider = true, "unsupported-file-handler"
		op.Recoveries = []observe.Recovery{{Processor: "unsupported-file-handler", Action: "uploaded", Cause: "api-error", Files: 1}}
		s.End(nil)
	}},
	{"tool-call", 1, func(ctx context.Context, tel *telemetry.Telemetry) {
		op := pooled(observe.Op{Kind: observe.ToolCall, Agent: "support", RunID: "run_01JD8X", Tool: "run_command", ToolCallID: "call_7f3a"})
		_, s := tel.Start(ctx, op)
		s.End(nil)
		observe.ReleaseOp(op)
	}},
	{"command", 1, func(ctx context.Context, tel *telemetry.Telemetry) {
		op := pooled(observe.Op{Kind: observe.Command, Sandbox: "sbx-support", ExitCode: -1})
		_, s := tel.Start(ctx, op)
		op.ExitCode = 0
		s.End(nil)
		observe.ReleaseOp(op)
	}},
	{"upload", 1, func(ctx context.Context, tel *telemetry.Telemetry) {
		op := pooled(observe.Op{Kind: observe.Upload, Sandbox: "sbx-support", Path: "/workspace/uploads/leads.xlsx", Size: 48213})
		_, s := tel.Start(ctx, op)
		op.Written = true
		s.End(nil)
		observe.ReleaseOp(op)
	}},
	// A text generate's trace: the request, the run, its step and its
	// model call, each under the one before (idle hooks make no span).
	{"generate", 4, func(ctx context.Context, tel *telemetry.Telemetry) {
		op := pooled(observe.Op{Kind: observe.Request, Method: "POST", Header: benchHeader})
		ctx, s := tel.Start(ctx, op)
		runCtx, run := runStart(ctx, tel)
		stepCtx, step := stepStart(runCtx, tel)
		modelCallOp(stepCtx, tel, nil)
		step.end()
		run.end()
		op.Route, op.Status = "/api/agents/{id}/generate", 200
		s.End(nil)
		observe.ReleaseOp(op)
	}},
}

var benchHeader = http.Header{"Content-Type": {"application/json"}, "User-Agent": {"mastra-client/0.10"}, "Accept": {"*/*"}}

// pooled is an Op from observe's pool, as keel's code takes the Ops of
// every kind but the processor hooks'.
func pooled(o observe.Op) *observe.Op {
	op := observe.NewOp()
	*op = o
	return op
}

type started struct {
	op *observe.Op
	s  observe.Span
}

func runStart(ctx context.Context, tel *telemetry.Telemetry) (context.Context, started) {
	op := pooled(observe.Op{Kind: observe.Run, Agent: "support", RunID: "run_01JD8X", ThreadID: "thread-42", ResourceID: "user-7"})
	ctx, s := tel.Start(ctx, op)
	return ctx, started{op, s}
}

func stepStart(ctx context.Context, tel *telemetry.Telemetry) (context.Context, started) {
	op := pooled(observe.Op{Kind: observe.Step, Agent: "support", RunID: "run_01JD8X", Step: 0})
	ctx, s := tel.Start(ctx, op)
	return ctx, started{op, s}
}

func (st started) end() {
	switch st.op.Kind {
	case observe.Run:
		st.op.Steps, st.op.FinishReason = 1, keel.FinishStop
		st.op.Usage = keel.Usage{InputTokens: 812, OutputTokens: 64, TotalTokens: 876}
	case observe.Step:
		st.op.Attempt, st.op.FinishReason = 1, keel.FinishStop
	}
	st.s.End(nil)
	observe.ReleaseOp(st.op)
}

func modelCallOp(ctx context.Context, tel *telemetry.Telemetry, err error) {
	op := pooled(observe.Op{Kind: observe.ModelCall, Agent: "support", RunID: "run_01JD8X", Provider: "google", Model: "gemini-2.5-flash",
		Step: 0, Attempt: 1})
	_, s := tel.Start(ctx, op)
	if err == nil {
		op.ResponseModel, op.ResponseID, op.FinishReason = "gemini-2.5-flash", "resp-9c1e77a0", keel.FinishStop
		op.Usage = keel.Usage{InputTokens: 812, OutputTokens: 64, TotalTokens: 876}
	}
	s.End(err)
	observe.ReleaseOp(op)
}

// BenchmarkSpan is the whole cost of one keel span as keel serve makes
// it with traces on: the tracer provider FromEnv builds (the default
// sampler, the batch span processor, the OTLP/HTTP exporter) sending to
// a local collector that reads each export and counts its spans. Each
// iteration is one span (generate: a text generate's four), started and
// ended through the Telemetry as keel's code does; the batch is flushed
// every 512 spans (its size), so that none is dropped and each is
// exported, as at a steady rate, and the benchmark fails unless the
// collector got them all. Reported per span: the process's CPU time (the
// caller, the processor's goroutine, the exporter's transform and the
// HTTP client, the collector's read, and the GC all of them cause), the
// bytes and allocations of the whole process, and the bytes on the wire.
//
// Beside them: "sdk-bare", a span with no attributes started on the
// SDK's tracer directly, the floor no change in keel can go under;
// "sdk-model-call-attrs", the SDK's cost of a model call's attributes
// built once, without keel; "no-export/…", the same spans batched to an
// exporter that counts and drops them (what the OTLP transform and
// send leave); "unsampled/…", a span the sampler drops
// (OTEL_TRACES_SAMPLER=traceidratio, OTEL_TRACES_SAMPLER_ARG=0).
func BenchmarkSpan(b *testing.B) {
	bare := func(ctx context.Context, _ *telemetry.Telemetry, tr trace.Tracer) {
		_, s := tr.Start(ctx, "bare")
		s.End()
	}
	sdkModelCall := func(ctx context.Context, _ *telemetry.Telemetry, tr trace.Tracer) {
		_, s := tr.Start(ctx, "chat gemini-2.5-flash", trace.WithSpanKind(trace.SpanKindClient))
		s.SetAttributes(modelCallAttrs...)
		s.End()
	}
	keel := func(c spanCase) func(context.Context, *telemetry.Telemetry, trace.Tracer) {
		return func(ctx context.Context, tel *telemetry.Telemetry, _ trace.Tracer) { c.run(ctx, tel) }
	}
	for _, c := range keelSpans {
		b.Run(c.name, func(b *testing.B) { benchSpans(b, otlpExport, c.spans, keel(c)) })
	}
	b.Run("sdk-bare", func(b *testing.B) { benchSpans(b, otlpExport, 1, bare) })
	b.Run("sdk-model-call-attrs", func(b *testing.B) { benchSpans(b, otlpExport, 1, sdkModelCall) })
	for _, c := range []spanCase{keelSpans[3], keelSpans[len(keelSpans)-1]} {
		b.Run("no-export/"+c.name, func(b *testing.B) { benchSpans(b, noExport, c.spans, keel(c)) })
		b.Run("unsampled/"+c.name, func(b *testing.B) { benchSpans(b, unsampled, c.spans, keel(c)) })
	}
	b.Run("no-export/sdk-bare", func(b *testing.B) { benchSpans(b, noExport, 1, bare) })
}

// modelCallAttrs are the attributes keel sets on a model call's span
// (a first attempt that succeeded).
var modelCallAttrs = []attribute.KeyValue{
	attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "google"),
	attribute.String("gen_ai.request.model", "gemini-2.5-flash"), attribute.String("gen_ai.response.model", "gemini-2.5-flash"),
	attribute.String("gen_ai.response.id", "resp-9c1e77a0"), attribute.StringSlice("gen_ai.response.finish_reasons", []string{"stop"}),
	attribute.Int("gen_ai.usage.input_tokens", 812), attribute.Int("gen_ai.usage.output_tokens", 64),
}

// How a benchmark's spans leave.
type exportMode int

const (
	otlpExport exportMode = iota // FromEnv's provider, to the local collector
	noExport                     // a batch span processor whose exporter counts and drops
	unsampled                    // FromEnv's provider with a sampler that keeps none
)

// flushEvery is the batch span processor's default batch size.
const flushEvery = 512

func benchSpans(b *testing.B, mode exportMode, perIter int, do func(context.Context, *telemetry.Telemetry, trace.Tracer)) {
	col := &spanCounter{}
	hs := httptest.NewServer(col)
	defer hs.Close()
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", hs.URL)
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
		"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"} {
		b.Setenv(v, "")
	}
	if mode == unsampled {
		b.Setenv("OTEL_TRACES_SAMPLER", "traceidratio")
		b.Setenv("OTEL_TRACES_SAMPLER_ARG", "0")
	}
	ctx := context.Background()
	var tp *sdktrace.TracerProvider
	dropped := &countingExporter{}
	if mode == noExport {
		tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(dropped))
	} else {
		var err error
		if tp, err = telemetry.FromEnv(ctx); err != nil || tp == nil {
			b.Fatalf("Got(FromEnv) = %v, %v; want a provider", tp, err)
		}
	}
	defer func() { _ = tp.Shutdown(ctx) }()
	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp})
	if err != nil {
		b.Fatal(err)
	}
	tr := tp.Tracer("bench")
	// The spans measured are children of a request's span, as in a trace
	// (the request's own and the bare SDK span's too: one parent for all,
	// so that each case makes the same IDs).
	pctx, parent := tr.Start(ctx, "parent")
	defer parent.End()
	for range flushEvery { // the exporter's connection and first buffers
		do(pctx, tel, tr)
	}
	if err := tp.ForceFlush(ctx); err != nil {
		b.Fatal(err)
	}
	col.reset()
	dropped.spans.Store(0)

	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for i := range b.N {
		do(pctx, tel, tr)
		if (i+1)*perIter%flushEvery < perIter {
			_ = tp.ForceFlush(ctx)
		}
	}
	if err := tp.ForceFlush(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu := cpuTime(b) - cpu0
	runtime.ReadMemStats(&m1)

	spans, wire := col.totals()
	spans += int(dropped.spans.Load())
	want := b.N * perIter
	if mode == unsampled {
		want = 0
	}
	if spans != want {
		b.Fatalf("Got(exported) %d spans; want %d: spans were dropped, or exported when they should not be", spans, want)
	}
	n := float64(b.N * perIter)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/span")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/n, "B/span")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/n, "allocs/span")
	b.ReportMetric(float64(wire)/n, "wire-B/span")
}

// countingExporter counts the spans it is given and drops them.
type countingExporter struct{ spans atomic.Int64 }

func (e *countingExporter) ExportSpans(_ context.Context, s []sdktrace.ReadOnlySpan) error {
	e.spans.Add(int64(len(s)))
	return nil
}

func (*countingExporter) Shutdown(context.Context) error { return nil }

// spanCounter is an OTLP/HTTP collector that reads each export into one
// reused buffer and counts its spans by walking the protobuf's wire
// format (no decoding, no allocation), so that what is measured is the
// sender's.
type spanCounter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	spans int
	wire  int
	err   error
}

func (c *spanCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Reset()
	if _, err := c.buf.ReadFrom(r.Body); err != nil {
		c.err = err
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.wire += c.buf.Len()
	// ExportTraceServiceRequest.resource_spans (1) → ResourceSpans.scope_spans (2) → ScopeSpans.spans (2).
	n, err := countNested(c.buf.Bytes(), 1, 2, 2)
	if err != nil {
		c.err = err
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.spans += n
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func (c *spanCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spans, c.wire, c.err = 0, 0, nil
}

func (c *spanCounter) totals() (spans, wire int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return -1, 0
	}
	return c.spans, c.wire
}

// countNested counts the messages at the end of a path of field numbers
// of length-delimited fields in the protobuf message b.
func countNested(b []byte, path ...protowire.Number) (int, error) {
	n := 0
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return 0, protowire.ParseError(l)
		}
		b = b[l:]
		if typ != protowire.BytesType {
			l = protowire.ConsumeFieldValue(num, typ, b)
			if l < 0 {
				return 0, protowire.ParseError(l)
			}
			b = b[l:]
			continue
		}
		v, l := protowire.ConsumeBytes(b)
		if l < 0 {
			return 0, protowire.ParseError(l)
		}
		b = b[l:]
		if num != path[0] {
			continue
		}
		if len(path) == 1 {
			n++
			continue
		}
		k, err := countNested(v, path[1:]...)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// The counter the benchmark trusts counts the spans a receiver decodes,
// across resources and scopes, and refuses a truncated message.
func TestSpanCounterCountsExportedSpans(t *testing.T) {
	spans := func(n int) []*tracepb.Span {
		s := make([]*tracepb.Span, n)
		for i := range s {
			s[i] = &tracepb.Span{Name: "s", Attributes: []*commonpb.KeyValue{{Key: "k"}}}
		}
		return s
	}
	for _, c := range []struct {
		name string
		req  *collectortrace.ExportTraceServiceRequest
		want int
	}{
		{"empty", &collectortrace.ExportTraceServiceRequest{}, 0},
		{"one scope", &collectortrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{
			{Resource: &resourcepb.Resource{}, ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "x"}, Spans: spans(3)}}}}}, 3},
		{"two resources, three scopes", &collectortrace.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{
			{ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans(2)}, {Spans: spans(5)}}},
			{ScopeSpans: []*tracepb.ScopeSpans{{Spans: spans(1)}}, SchemaUrl: "u"}}}, 8},
	} {
		b, err := proto.Marshal(c.req)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := countNested(b, 1, 2, 2); got != c.want || err != nil {
			t.Errorf("Got(countNested(%s)) = %d, %v; want %d", c.name, got, err, c.want)
		}
		if len(b) > 2 {
			if _, err := countNested(b[:len(b)-1], 1, 2, 2); err == nil {
				t.Errorf("Got(countNested(%s truncated)) = nil error; want one", c.name)
			}
		}
	}
}
