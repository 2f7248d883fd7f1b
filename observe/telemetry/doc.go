// Package telemetry is keel's observe.Observer for operators: Prometheus
// metrics and OpenTelemetry traces of what the server, the agents and
// their sandboxes do.
//
//	tp, err := telemetry.FromEnv(ctx) // nil unless OTEL_* ask for traces
//	tel, err := telemetry.New(telemetry.Options{Metrics: true, TracerProvider: tp})
//	store = tel.Store(store)           // the store's latency
//	srv, err := server.New(server.Config{..., Memory: store, Observer: tel, Metrics: tel.Handler()})
//	defer tp.Shutdown(ctx)             // sends the last spans
//
// # Metrics
//
// All under the keel_ namespace; each latency histogram's _count is the
// number of operations by its labels:
//
//	keel_http_request_duration_seconds{method, route, status}   route: the path template, "none" before routing; status 499: the client went away
//	keel_run_duration_seconds{agent, status}
//	keel_model_call_duration_seconds{provider, model, status}   each attempt; status: ok, the provider's HTTP status, timeout, canceled, unsupported, no-answer, error
//	keel_model_tokens_total{provider, model, type}              type: input, output
//	keel_model_retries_total{processor}                         failed calls a processor chose to try again
//	keel_recoveries_total{processor, action, cause}             cause: api-error, unsupported-functionality, remembered-refusal, none
//	keel_tool_call_duration_seconds{tool, status}               status: ok, error
//	keel_sandbox_command_duration_seconds{status}               status: ok, nonzero, timeout, canceled, error
//	keel_sandbox_uploads_total{status}, keel_sandbox_upload_bytes_total   status: written, present, error
//	keel_store_duration_seconds{op, status}                     op: get_thread, save_messages, start_thread, ...
//
// with the Go runtime's (go_*) and the process's (process_*). Labels take
// values from bounded sets — route templates, never paths; agent, tool,
// provider and model names from the configuration — so the number of
// series stays fixed whatever the traffic.
//
// # Traces
//
// A span per operation the observe package names, with the names and
// attributes of OpenTelemetry's conventions where they have some: a
// request is "{method} {route}" (server; http.request.method, http.route,
// http.response.status_code), continuing the caller's W3C traceparent
// (and baggage); a run "invoke_agent {agent}" (gen_ai.agent.id,
// gen_ai.conversation.id: the thread, keel.run.id, keel.resource.id,
// token usage); a model call "chat {model}" (client;
// gen_ai.provider.name, gen_ai.request.model, gen_ai.response.model,
// gen_ai.response.id, gen_ai.response.finish_reasons,
// gen_ai.usage.input_tokens and output_tokens, error.type); a tool call
// "execute_tool {tool}" (gen_ai.tool.name, gen_ai.tool.call.id). keel's
// own: "keel.step" (keel.step, keel.attempts); "keel.processor {hook}"
// with keel.decision.retry, .processor and .delay_ms for an API error,
// and per recovery the keel.recovery.processor, .action and .cause
// attributes (one value each, in order) and a "keel.recovery" event;
// "keel.sandbox.command" (keel.sandbox.id, process.exit.code);
// "keel.sandbox.upload" (keel.upload.path, .size, .written). Neither
// prompts, answers, files nor command lines are recorded: they are the
// users'.
//
// An API-error hook always has its span (it decides); an input or
// LLM-request hook only when it did something — reported a recovery,
// failed, or started an upload, which is then its child — since most do
// nothing on most calls. Store calls have no spans, only the metric.
//
// Each value is sent once, and the spans of a run that succeeds keep to
// 8 attributes: past 8, the SDK's de-duplication when a span ends puts a
// map on the heap. A run's finish reason is its last step's
// keel.finish_reason; keel.attempt marks a model call's retries (none on
// a first attempt).
//
// [FromEnv] reads the standard OTEL_* variables and turns tracing on only
// when they ask for it; traces go over OTLP/HTTP in batches (the SDK's
// batch span processor: up to 512 spans an export, every 5 s at the
// latest, 2048 waiting at most, then new spans are dropped; OTEL_BSP_*
// change these).
//
// # Export
//
// The spans leave through [Exporter], keel's own OTLP/HTTP exporter: it
// writes the protobuf ExportTraceServiceRequest straight from the SDK's
// spans into one buffer it reuses (otlptracehttp first builds OTLP's
// generated message for every span and attribute, about half of what a
// span cost end to end) and posts it as application/x-protobuf, gzipped
// if asked. It reads the OTEL_EXPORTER_OTLP_[TRACES_]* variables that
// otlptracehttp reads for OTLP/HTTP ([ExporterConfigFromEnv]: endpoint,
// headers, timeout, compression, certificates), but refuses with a
// [*ConfigError] what the SDK would log and skip: a header value with a
// CR or LF, a timeout that is not milliseconds, an unknown compression,
// a certificate file it cannot read. It tries again on 429, 502, 503,
// 504 and a failed connection, after the collector's Retry-After or a
// jittered backoff, within OTEL_EXPORTER_OTLP_TIMEOUT (10 s) for the
// whole export; any other answer is an error at once. A collector's
// partial success (spans it rejected) is not read.
//
// # Sampling
//
// With OTEL_TRACES_SAMPLER unset, keel uses the SDK's default sampler,
// parentbased_always_on: a request that arrives without a traceparent
// starts a trace that is recorded whole, and one that carries a
// traceparent follows the caller's decision (its sampled flag), so that
// a caller that sampled a trace out gets no spans from keel either.
// Every span of a trace shares its root's decision: a trace is kept or
// dropped whole. To keep one trace in ten:
//
//	OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.1
//
// The other values are always_on, always_off, traceidratio (the ratio
// also for requests that carry a decision) and parentbased_always_off.
// [FromEnv] refuses a sampler the SDK does not know and a ratio outside
// 0–1, which the SDK itself would only log before sampling everything.
// A span sampled out costs the Op and the span's IDs, no attributes and
// no export.
//
// # Cost
//
// Each operation costs a clock read and, per label set, a map lookup in
// the metric's vector; a span is made only when tracing. A span that is
// recorded costs, end to end (started, ended, batched, written as OTLP
// and sent), about 5–12 µs of CPU and 1.7–2.2 KB of allocations on a
// busy 2-core machine — a text generate's four spans 1.96 KB and 6–7 µs
// each; a refused model call 2.7 KB, an API-error hook with a recovery
// 3.6 KB and 12 µs — most of it the SDK's: its recording span and the
// snapshot it hands the processor, about 0.9 KB, and 64 B for each
// attribute it copies. The exporter adds about 100 B a span; keel's
// observe.Op, 448 B. A span sampled out costs 0.7 KB and under 2 µs.
// BenchmarkSpan measures each kind, and BENCHMARKS.md has the figures.
package telemetry
