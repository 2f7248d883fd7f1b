package telemetry

import (
	"strconv"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/keel-go/keel/observe"
)

// spanName names an op's span as OpenTelemetry's conventions do where
// they have one: "{method} {route}" for a request (the route set at the
// end), "invoke_agent {agent}", "chat {model}" and "execute_tool {tool}"
// for GenAI operations; keel's own otherwise.
func spanName(op *observe.Op) string {
	switch op.Kind {
	case observe.Request:
		return op.Method
	case observe.Run:
		return "invoke_agent " + op.Agent
	case observe.Step:
		return "keel.step"
	case observe.ModelCall:
		return "chat " + op.Model
	case observe.Processor:
		return "keel.processor " + op.Hook
	case observe.ToolCall:
		return "execute_tool " + op.Tool
	case observe.Command:
		return "keel.sandbox.command"
	case observe.Upload:
		return "keel.sandbox.upload"
	}
	return "keel." + op.Kind.String()
}

func spanKind(op *observe.Op) trace.SpanKind {
	switch op.Kind {
	case observe.Request:
		return trace.SpanKindServer
	case observe.ModelCall:
		return trace.SpanKindClient
	}
	return trace.SpanKindInternal
}

// appendAttrs appends op's attributes, known at its start and at its
// end, with err's error.type, to a: all set in one call when the span
// ends, since each call of a span's SetAttributes costs a copy.
//
// Each value is sent once (a run's finish reason is its last step's
// keel.finish_reason; a first attempt has no keel.attempt), and the
// spans of a run that succeeds keep to 8 attributes: each
// costs about 250 B and 3 allocations in the SDK and the OTLP transform,
// and past 8 the SDK's de-duplication at the span's end moves a map of
// them to the heap, 500 B more.
func appendAttrs(a []attribute.KeyValue, op *observe.Op, err error) []attribute.KeyValue {
	switch op.Kind {
	case observe.Request:
		a = append(a, attribute.String("http.request.method", op.Method), attribute.Int("http.response.status_code", op.Status))
		if op.Route != "" {
			a = append(a, attribute.String("http.route", op.Route))
		}
		if op.Status >= 500 && err == nil {
			a = append(a, attribute.String("error.type", strconv.Itoa(op.Status)))
		}
	case observe.Run:
		a = append(a, attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.id", op.Agent),
			attribute.String("keel.run.id", op.RunID), attribute.Int("keel.steps", op.Steps),
			attribute.Int("gen_ai.usage.input_tokens", op.Usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", op.Usage.OutputTokens))
		if op.ThreadID != "" {
			a = append(a, attribute.String("gen_ai.conversation.id", op.ThreadID))
		}
		if op.ResourceID != "" {
			a = append(a, attribute.String("keel.resource.id", op.ResourceID))
		}
	case observe.Step:
		a = append(a, attribute.Int("keel.step", op.Step), attribute.Int("keel.attempts", op.Attempt),
			attribute.String("keel.finish_reason", string(op.FinishReason)))
	case observe.ModelCall:
		a = append(a, attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", op.Provider),
			attribute.String("gen_ai.request.model", op.Model))
		if op.Attempt > 1 {
			a = append(a, attribute.Int("keel.attempt", op.Attempt))
		}
		if err == nil {
			a = append(a, attribute.String("gen_ai.response.model", op.ResponseModel), attribute.String("gen_ai.response.id", op.ResponseID),
				attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(op.FinishReason)}),
				attribute.Int("gen_ai.usage.input_tokens", op.Usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", op.Usage.OutputTokens))
		} else {
			a = append(a, attribute.Bool("keel.output_sent", op.OutputSent))
		}
	case observe.Processor:
		a = append(a, attribute.String("keel.processor.hook", op.Hook))
		if op.Step >= 0 {
			a = append(a, attribute.Int("keel.step", op.Step))
		}
		a = appendDecision(a, op)
	case observe.ToolCall:
		a = append(a, attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", op.Tool),
			attribute.String("gen_ai.tool.call.id", op.ToolCallID))
		if op.ToolFailed && err == nil {
			a = append(a, attribute.String("error.type", "tool_error"))
		}
	case observe.Command:
		a = append(a, attribute.String("keel.sandbox.id", op.Sandbox), attribute.Int("process.exit.code", op.ExitCode))
	case observe.Upload:
		a = append(a, attribute.String("keel.sandbox.id", op.Sandbox), attribute.Int64("keel.upload.size", op.Size),
			attribute.String("keel.upload.path", op.Path), attribute.Bool("keel.upload.written", op.Written))
	}
	if err != nil {
		a = append(a, attribute.String("error.type", errorClass(err)))
	}
	return a
}

// attrBuf holds the attributes of a span while they are set: the SDK's
// span copies them, so one buffer serves span after span, where a new
// slice would cost each span a kilobyte.
type attrBuf struct{ a []attribute.KeyValue }

var attrBufs = sync.Pool{New: func() any { return &attrBuf{a: make([]attribute.KeyValue, 0, 16)} }}

// endSpan sets what op told, and err, on s and ends it. reuse says that
// s copies the attributes it is given (the SDK's spans do), so that they
// may be built in a pooled buffer.
func endSpan(s trace.Span, op *observe.Op, err error, reuse bool) {
	if !s.IsRecording() {
		// The sampler dropped it: whatever is set would be thrown away.
		s.End()
		return
	}
	if op.Kind == observe.Request && op.Route != "" {
		s.SetName(op.Method + " " + op.Route)
	}
	if reuse {
		buf := attrBufs.Get().(*attrBuf)
		buf.a = appendAttrs(buf.a[:0], op, err)
		s.SetAttributes(buf.a...)
		clear(buf.a) // the strings are not kept alive by the pool
		attrBufs.Put(buf)
	} else {
		s.SetAttributes(appendAttrs(nil, op, err)...)
	}
	switch {
	case err != nil:
		s.RecordError(err)
		s.SetStatus(codes.Error, errorClass(err))
	case op.Kind == observe.Request && op.Status >= 500:
		s.SetStatus(codes.Error, strconv.Itoa(op.Status))
	case op.Kind == observe.ToolCall && op.ToolFailed:
		s.SetStatus(codes.Error, "the tool failed")
	}
	if op.Kind == observe.Processor {
		recoveryEvents(s, op)
	}
	s.End()
}

// appendDecision appends a processor hook's decision and recoveries: one
// value per recovery in order, so that a backend can search for an
// action or a cause.
func appendDecision(a []attribute.KeyValue, op *observe.Op) []attribute.KeyValue {
	if op.Hook == observe.HookAPIError {
		a = append(a, attribute.Bool("keel.decision.retry", op.Retry), attribute.Bool("keel.output_sent", op.OutputSent))
		if op.Retry {
			a = append(a, attribute.String("keel.decision.processor", op.Decider), attribute.Int64("keel.decision.delay_ms", op.Delay.Milliseconds()))
		}
	}
	if len(op.Recoveries) == 0 {
		return a
	}
	procs := make([]string, len(op.Recoveries))
	actions := make([]string, len(op.Recoveries))
	causes := make([]string, len(op.Recoveries))
	for i, r := range op.Recoveries {
		procs[i], actions[i], causes[i] = r.Processor, r.Action, r.Cause
	}
	return append(a, attribute.StringSlice("keel.recovery.processor", procs), attribute.StringSlice("keel.recovery.action", actions),
		attribute.StringSlice("keel.recovery.cause", causes))
}

// recoveryEvents adds one "keel.recovery" event per recovery of a hook.
func recoveryEvents(s trace.Span, op *observe.Op) {
	for _, r := range op.Recoveries {
		s.AddEvent("keel.recovery", trace.WithAttributes(attribute.String("keel.recovery.processor", r.Processor),
			attribute.String("keel.recovery.action", r.Action), attribute.String("keel.recovery.cause", r.Cause),
			attribute.Int("keel.recovery.files", r.Files)))
	}
}
