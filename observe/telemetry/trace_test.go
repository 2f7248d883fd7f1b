package telemetry_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/keel-go/keel/observe/telemetry"
)

const (
	remoteTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	remoteParent = "00f067aa0ba902b7"
)

// A run with a refused file (recovered by an upload and a retry) and a
// tool call gives one trace, continuing the caller's traceparent: the
// request, the run, its steps, each model call with the GenAI attributes,
// the processor hooks with the decision and the recovery's action and
// cause, the tool call, the sandbox command and the upload, each under
// the span it happened in.
func TestSpansOfARun(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, tel)
	r.generate("traceparent", "00-"+remoteTrace+"-"+remoteParent+"-01")
	spans := exp.GetSpans()

	req := one(t, spans, "POST /api/agents/{id}/generate")
	if req.SpanKind() != trace.SpanKindServer || req.Parent().SpanID().String() != remoteParent || !req.Parent().IsRemote() {
		t.Errorf("Got(request span) kind %v, parent %v; want a server span under the caller's %s", req.SpanKind(), req.Parent(), remoteParent)
	}
	wantAttrs(t, req, attribute.String("http.route", "/api/agents/{id}/generate"), attribute.Int("http.response.status_code", 200))
	for _, s := range spans {
		if s.SpanContext.TraceID().String() != remoteTrace {
			t.Errorf("Got(span %q) trace %s; want the caller's %s", s.Name, s.SpanContext.TraceID(), remoteTrace)
		}
	}

	run := one(t, spans, "invoke_agent analyst")
	wantParent(t, run, req)
	wantAttrs(t, run, attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.id", "analyst"),
		attribute.String("gen_ai.conversation.id", "t1"), attribute.String("keel.resource.id", "r1"), attribute.Int("keel.steps", 2),
		attribute.Int("gen_ai.usage.input_tokens", 20), attribute.Int("gen_ai.usage.output_tokens", 10))

	steps := named(spans, "keel.step")
	if len(steps) != 2 {
		t.Fatalf("Got(%d step spans); want 2", len(steps))
	}
	for _, s := range steps {
		wantParent(t, s, run)
	}
	calls := named(spans, "chat scripted")
	if len(calls) != 3 {
		t.Fatalf("Got(%d model call spans); want 3: the refused call, its retry, the answer", len(calls))
	}
	for i, c := range calls {
		wantAttrs(t, c, attribute.String("gen_ai.provider.name", "keeltest"), attribute.String("gen_ai.request.model", "scripted"),
			attribute.String("gen_ai.operation.name", "chat"))
		if c.SpanKind() != trace.SpanKindClient {
			t.Errorf("Got(model call %d kind) = %v; want client", i, c.SpanKind())
		}
	}
	wantParent(t, calls[0], steps[0])
	wantParent(t, calls[1], steps[0])
	wantParent(t, calls[2], steps[1])
	if calls[0].Status().Code != codes.Error {
		t.Errorf("Got(refused call status) = %v; want an error", calls[0].Status())
	}
	wantAttrs(t, calls[0], attribute.String("error.type", "unsupported"))
	if v := attr(calls[0], "keel.attempt"); v.Type() != attribute.INVALID {
		t.Errorf("Got(first attempt's keel.attempt) = %v; want none: a first attempt is the common case", v.Emit())
	}
	wantAttrs(t, calls[1], attribute.Int("keel.attempt", 2), attribute.Int("gen_ai.usage.input_tokens", 10),
		attribute.Int("gen_ai.usage.output_tokens", 5), attribute.StringSlice("gen_ai.response.finish_reasons", []string{"tool-calls"}))

	// Past 8 attributes the SDK's de-duplication at a span's end puts a
	// map on the heap (500 B a span): the spans of a run stay under, but
	// for a retried call (keel.attempt) and a failure (error.type).
	for _, s := range append([]stub{req, run, calls[2]}, steps...) {
		if n := len(s.Attributes()); n > 8 {
			t.Errorf("Got(%q) %d attributes; want at most 8", s.Name(), n)
		}
	}

	decision := one(t, spans, "keel.processor api-error")
	wantParent(t, decision, steps[0])
	wantAttrs(t, decision, attribute.Bool("keel.decision.retry", true), attribute.String("keel.decision.processor", "unsupported-file-handler"))

	var recovered sdktrace.ReadOnlySpan
	for _, s := range named(spans, "keel.processor llm-request") {
		if has(s, attribute.StringSlice("keel.recovery.action", []string{"uploaded"})) {
			recovered = s
		}
	}
	if recovered == nil {
		t.Fatalf("Got(no llm-request hook span with the recovery); want one")
	}
	wantParent(t, recovered, steps[0])
	wantAttrs(t, recovered, attribute.StringSlice("keel.recovery.cause", []string{"unsupported-functionality"}),
		attribute.StringSlice("keel.recovery.processor", []string{"unsupported-file-handler"}))
	if ev := recovered.Events(); len(ev) != 1 || ev[0].Name != "keel.recovery" {
		t.Errorf("Got(recovery events) = %v; want one keel.recovery", ev)
	}
	upload := one(t, spans, "keel.sandbox.upload")
	wantParent(t, upload, recovered)
	wantAttrs(t, upload, attribute.Int64("keel.upload.size", int64(len(fileBody))), attribute.Bool("keel.upload.written", true))
	if path := attr(upload, "keel.upload.path").AsString(); !strings.Contains(path, "uploads/") || !strings.HasSuffix(path, ".xlsx") {
		t.Errorf("Got(upload path) = %q; want the file's place under uploads/", path)
	}

	toolCall := one(t, spans, "execute_tool run_command")
	wantParent(t, toolCall, steps[0])
	wantAttrs(t, toolCall, attribute.String("gen_ai.tool.name", "run_command"), attribute.String("gen_ai.tool.call.id", "call-1"))
	command := one(t, spans, "keel.sandbox.command")
	wantParent(t, command, toolCall)
	wantAttrs(t, command, attribute.Int("process.exit.code", 0))

	// A hook that did nothing has no span: the first step's two
	// LLM-request hooks and the second step's did nothing but the one
	// that uploaded; the input hook did nothing.
	if n := len(named(spans, "keel.processor llm-request")); n != 1 {
		t.Errorf("Got(%d llm-request hook spans); want 1, the one that recovered", n)
	}
	if n := len(named(spans, "keel.processor input")); n != 0 {
		t.Errorf("Got(%d input hook spans); want none: it did nothing", n)
	}
}

func named(spans tracetest.SpanStubs, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans.Snapshots() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	// In the order they started.
	slices.SortFunc(out, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	return out
}

// stub is a span as the tests read it.
type stub = sdktrace.ReadOnlySpan

func one(t *testing.T, spans tracetest.SpanStubs, name string) stub {
	t.Helper()
	got := named(spans, name)
	if len(got) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("Got(%d spans named %q among %v); want 1", len(got), name, names)
	}
	return got[0]
}

func wantParent(t *testing.T, child, parent stub) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("Got(parent of %q) = %s; want %q (%s)", child.Name(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().SpanID())
	}
}

func attr(s stub, key attribute.Key) attribute.Value {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func has(s stub, want attribute.KeyValue) bool {
	return attr(s, want.Key).Emit() == want.Value.Emit() && attr(s, want.Key).Type() == want.Value.Type()
}

func wantAttrs(t *testing.T, s stub, want ...attribute.KeyValue) {
	t.Helper()
	for _, kv := range want {
		if !has(s, kv) {
			t.Errorf("Got(%q %s) = %q; want %q", s.Name(), kv.Key, attr(s, kv.Key).Emit(), kv.Value.Emit())
		}
	}
}
