// Package observe is the one seam through which keel tells what it does,
// for metrics and traces: an [Observer] is told when each operation starts
// and ends, as an [Op] whose Kind says what it is.
//
// # Design
//
// Instrumentation sits at a few seams, not across the code:
//
//   - the server reports each HTTP request (method, route, the status the
//     client saw) and puts its Observer in the request's context;
//   - the agent reports each run, step, attempt at a model call, processor
//     hook (with the decision of an API-error hook and the recoveries the
//     processors reported during it) and tool call, and puts the observer
//     in the run's context;
//   - the workspace reports each sandbox command run through
//     workspace.RunCommand (the tools and the uploader use it) and each
//     upload, finding the observer in the context.
//
// Each seam starts its Op inline, in the code it observes. It looks the
// observer up once and, when there is none, does nothing else: no Op is
// made, no clock read. When there is one, the Op comes from a pool
// ([NewOp]) and goes back once its span has ended ([ReleaseOp]). So keel with metrics and
// tracing off pays a context lookup per operation, and keel's packages
// depend on nothing beyond the standard library for it: this package
// imports only the standard library and keel.
//
// The context an Observer's Start returns is the one the operation goes
// on with, so that what starts under it is its child: a tracing observer
// keeps its span there. Package observe/telemetry is the observer keel
// serve uses: Prometheus metrics and OpenTelemetry traces, and a memory
// store wrapper for the store's latency (a store is a plain interface,
// so it is wrapped rather than hooked).
//
// An operation's tree, as a run with a refused file and a tool call gives
// it:
//
//	Request POST /api/agents/{id}/generate
//	└─ Run
//	   ├─ Processor input
//	   └─ Step 0
//	      ├─ Processor llm-request
//	      ├─ ModelCall (attempt 1: refused)
//	      ├─ Processor api-error (retry, by unsupported-file-handler)
//	      ├─ Processor llm-request (recovery: uploaded, unsupported-functionality)
//	      │  └─ Upload
//	      ├─ ModelCall (attempt 2)
//	      └─ ToolCall run_command
//	         └─ Command
package observe
