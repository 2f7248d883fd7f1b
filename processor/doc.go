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
// When the run's context ends during an input or LLM-request hook, the
// hook's answer is dropped and the context's error is returned, and the
// run's sandbox resolution is not kept: a cancellation never shows as a
// missing sandbox or an upload failure.
//
// # Built-ins
//
// Every agent has these error processors unless it turns the defaults off
// ([DefaultErrorProcessors], in this order):
//
//   - [PrefillErrorHandler] ("prefill-error-handler"): when a model does not
//     support assistant message prefill, adds a user message
//     "<system-reminder>continue</system-reminder>", marked in its metadata
//     as {"systemReminder": {"type": "anthropic-prefill-processor-retry"}},
//     and retries at once.
//   - [UnsupportedFileHandler] ("unsupported-file-handler"): when the
//     model refused a file, in its SDK or in its HTTP response, takes every
//     file the model may not read out of the prompt and calls it once
//     more. Only the prompt changes.
//   - [StreamErrorRetry] ("stream-error-retry-processor"): retries
//     transient failures (rate limits, overloads, 5xx, connection resets)
//     with the same request, honouring the provider's Retry-After.
//
// [FileUpload] ("file-upload") is an input processor that chooses which
// files go to the sandbox before the model sees them.
//
// # What the model gets instead of a file
//
// A file the unsupported-file handler or FileUpload takes out of a prompt
// becomes one text part at its place, the same on every call of the run:
//
//   - uploaded to the run's sandbox (the one the agent's tools use), at a
//     path named by the content's SHA-256:
//
//     [File uploaded to the sandbox]
//     path: /home/user/uploads/thread-1/0b2f….xlsx
//     name: leads.xlsx
//     type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
//     size: 48213 bytes
//
//   - not uploaded, with the reason: a file over 10 MiB (10,485,760
//     decoded bytes; FileUpload's own MaxSize may be lower) or whose
//     inline data cannot be decoded, when the run has a sandbox; and a
//     file of the history that FileUpload chose but could not upload (no
//     sandbox, a sandbox that cannot take files, a failed write):
//
//     [File not uploaded]
//     name: big.zip
//     reason: File "big.zip" is 11534336 bytes, over the 10485760 byte limit.
//
//   - the unsupported-file handler's placeholder, when the run has no
//     sandbox, its sandbox cannot take files or the write failed, or the
//     file is given by http(s) URL or provider file ID (never downloaded):
//
//     [Attachment unavailable: leads.xlsx]
//
// Names are display names: the file name, else the media type as sent,
// else "file", without control characters and terminal escape sequences,
// at most 200 characters. A reason speaks of "An unnamed file" when the
// sender gave no file name.
//
// # Recoveries
//
// Each file handled is reported once per run with [Run.Report], as a
// [Recovery] whose Action is what its files got — "uploaded" (with the
// Path), "not-uploaded" (with the Reason, the sentence the model read) or
// "placeholder" — and whose files carry their name, media type, size and
// SHA-256. The unsupported-file handler's recoveries also carry their
// Cause: the provider's status, code and message, or the SDK's refusal and
// the media type it named. The agent returns them in its result and sends
// them to a stream as they happen.
package processor
