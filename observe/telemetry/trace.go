package telemetry

import (
	"strconv"

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

// startAttrs are the attributes known when op starts: the ones a sampler
// may look at.
func startAttrs(op *observe.Op) []attribute.KeyValue {
	switch op.Kind {
	case observe.Request:
		return []attribute.KeyValue{attribute.String("http.request.method", op.Method)}
	case observe.Run:
		a := []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "invoke_agent"),
			attribute.String("gen_ai.agent.id", op.Agent),
			attribute.String("keel.run.id", op.RunID),
			attribute.Bool("keel.streaming", op.Streaming),
		}
		if op.ThreadID != "" {
			a = append(a, attribute.String("gen_ai.conversation.id", op.ThreadID), attribute.String("keel.thread.id", op.ThreadID))
		}
		if op.ResourceID != "" {
			a = append(a, attribute.String("keel.resource.id", op.ResourceID))
		}
		return a
	case observe.Step:
		return []attribute.KeyValue{attribute.String("keel.run.id", op.RunID), attribute.Int("keel.step", op.Step)}
	case observe.ModelCall:
		return []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "chat"),
			// gen_ai.system is the older name of gen_ai.provider.name;
			// both, for backends that read either.
			attribute.String("gen_ai.system", op.Provider),
			attribute.String("gen_ai.provider.name", op.Provider),
			attribute.String("gen_ai.request.model", op.Model),
			attribute.Int("keel.step", op.Step),
			attribute.Int("keel.attempt", op.Attempt),
			attribute.Bool("keel.streaming", op.Streaming),
		}
	case observe.Processor:
		a := []attribute.KeyValue{attribute.String("keel.processor.hook", op.Hook)}
		if op.Step >= 0 {
			a = append(a, attribute.Int("keel.step", op.Step))
		}
		return a
	case observe.ToolCall:
		return []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", op.Tool),
			attribute.String("gen_ai.tool.call.id", op.ToolCallID),
		}
	case observe.Command:
		return []attribute.KeyValue{attribute.String("keel.sandbox.id", op.Sandbox)}
	case observe.Upload:
		return []attribute.KeyValue{attribute.String("keel.sandbox.id", op.Sandbox), attribute.Int64("keel.upload.size", op.Size)}
	}
	return nil
}

// endSpan sets what op learned by its end, and err, on s and ends it.
func endSpan(s trace.Span, op *observe.Op, err error) {
	switch op.Kind {
	case observe.Request:
		if op.Route != "" {
			s.SetName(op.Method + " " + op.Route)
			s.SetAttributes(attribute.String("http.route", op.Route))
		}
		s.SetAttributes(attribute.Int("http.response.status_code", op.Status))
		if op.Status >= 500 {
			s.SetStatus(codes.Error, strconv.Itoa(op.Status))
			s.SetAttributes(attribute.String("error.type", strconv.Itoa(op.Status)))
		}
	case observe.Run:
		s.SetAttributes(attribute.Int("keel.steps", op.Steps), attribute.String("keel.finish_reason", string(op.FinishReason)),
			attribute.Int("gen_ai.usage.input_tokens", op.Usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", op.Usage.OutputTokens))
	case observe.Step:
		s.SetAttributes(attribute.Int("keel.attempts", op.Attempt), attribute.String("keel.finish_reason", string(op.FinishReason)))
	case observe.ModelCall:
		if err == nil {
			s.SetAttributes(attribute.String("gen_ai.response.model", op.ResponseModel), attribute.String("gen_ai.response.id", op.ResponseID),
				attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(op.FinishReason)}),
				attribute.Int("gen_ai.usage.input_tokens", op.Usage.InputTokens), attribute.Int("gen_ai.usage.output_tokens", op.Usage.OutputTokens))
		}
		s.SetAttributes(attribute.Bool("keel.output_sent", op.OutputSent))
	case observe.Processor:
		processorAttrs(s, op)
	case observe.ToolCall:
		if op.ToolFailed && err == nil {
			s.SetStatus(codes.Error, "the tool failed")
			s.SetAttributes(attribute.String("error.type", "tool_error"))
		}
	case observe.Command:
		s.SetAttributes(attribute.Int("process.exit.code", op.ExitCode))
	case observe.Upload:
		s.SetAttributes(attribute.String("keel.upload.path", op.Path), attribute.Bool("keel.upload.written", op.Written))
	}
	if err != nil {
		class := errorClass(err)
		s.RecordError(err)
		s.SetStatus(codes.Error, class)
		s.SetAttributes(attribute.String("error.type", class))
	}
	s.End()
}

// processorAttrs sets a processor hook's decision and recoveries: as
// attributes, one value per recovery in order (so a backend can search
// for an action or a cause), and as one "keel.recovery" event each.
func processorAttrs(s trace.Span, op *observe.Op) {
	if op.Hook == observe.HookAPIError {
		s.SetAttributes(attribute.Bool("keel.decision.retry", op.Retry), attribute.Bool("keel.output_sent", op.OutputSent))
		if op.Retry {
			s.SetAttributes(attribute.String("keel.decision.processor", op.Decider), attribute.Int64("keel.decision.delay_ms", op.Delay.Milliseconds()))
		}
	}
	if len(op.Recoveries) == 0 {
		return
	}
	procs := make([]string, len(op.Recoveries))
	actions := make([]string, len(op.Recoveries))
	causes := make([]string, len(op.Recoveries))
	for i, r := range op.Recoveries {
		procs[i], actions[i], causes[i] = r.Processor, r.Action, r.Cause
		if causes[i] == "" {
			causes[i] = "none"
		}
		s.AddEvent("keel.recovery", trace.WithAttributes(attribute.String("keel.recovery.processor", r.Processor),
			attribute.String("keel.recovery.action", r.Action), attribute.String("keel.recovery.cause", causes[i]),
			attribute.Int("keel.recovery.files", r.Files)))
	}
	s.SetAttributes(attribute.StringSlice("keel.recovery.processor", procs), attribute.StringSlice("keel.recovery.action", actions),
		attribute.StringSlice("keel.recovery.cause", causes))
}
