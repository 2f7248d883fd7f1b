// Package processor holds the hooks an agent runs around its model calls,
// the rules by which they run, and keel's built-in processors.
//
// # Hooks
//
// A [Processor] has an ID and implements one or more small interfaces:
//
//   - [InputProcessor]: checks or changes a turn's new messages before they
//     are stored; an error stops the turn.
//   - [LLMRequestRewriter]: rewrites the prompt of one model call. It gets
//     a clone: stored messages never change.
//   - [APIErrorHandler]: decides whether a failed call is tried again, and
//     after how long.
//
// Processor values are shared by concurrent runs, so they keep per-run
// state with [StateOf], never in their own fields.
//
// # Rules
//
// A [Pipeline] runs the hooks in list order (the agent's input processors,
// then its error processors). For an API error, the first handler that
// answers Retry wins and the others are not asked; a handler that fails or
// panics is logged and skipped; once the run reached its retry cap
// ([DefaultMaxRetries] unless configured), or when the context is done,
// nothing is retried and the model's error surfaces unchanged.
//
// # Built-ins
//
// Every agent has these error processors unless it turns the defaults off
// ([DefaultErrorProcessors], in this order):
//
//   - [PrefillErrorHandler] ("prefill-error-handler"): when a model does not
//     support assistant message prefill, adds a user message
//     "<system-reminder>continue</system-reminder>" and retries at once.
//   - [UnsupportedFileHandler] ("unsupported-file-handler"): when the
//     model refused a file, in its SDK or in its HTTP response, takes every
//     file the model may not read out of the prompt and calls it once
//     more. With a sandbox, the file is uploaded and the model gets its
//     path; otherwise a placeholder. Only the prompt changes.
//   - [StreamErrorRetry] ("stream-error-retry-processor"): retries
//     transient failures (rate limits, overloads, 5xx, connection resets)
//     with the same request, honouring the provider's Retry-After.
//
// [FileUpload] ("file-upload") is an input processor that chooses which
// files go to the sandbox before the model sees them.
package processor
