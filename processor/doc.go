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
//   - [ResponseObserver]: is told of every call that succeeded, with the
//     prompt it was sent.
//
// Processor values are shared by concurrent runs, so they keep per-run
// state with [StateOf], never in their own fields.
//
// # Rules
//
// A [Pipeline] runs the hooks in list order (the agent's [LinkDownload],
// its input processors, then its error processors). For an API error, the first handler that
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
// Every agent's first processor is [LinkDownload] ("link-download"), an
// LLM-request rewriter that gives the model the bytes of each file sent
// as an http(s) link its provider does not fetch, or a note saying why it
// could not be downloaded; the processors after it see the downloaded
// file as any file.
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
//     more. Only the prompt changes. Its doc maps each of its rules to the
//     function that keeps it, and names the file of each of keel's
//     extensions (converters, remembered refusals: see below).
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
//   - with converters ([UnsupportedFileOptions].Converters), the file's
//     text, after the note (which is unchanged) or in place of the
//     placeholder, under a label; text over the cap ends with a line
//     saying how much was left out and, when uploaded, where the file is:
//
//     [Text of leads.xlsx — sheet "Leads", 1,204 rows × 9 columns, as CSV]
//     # Sheet "Leads": 1,204 rows × 9 columns, cells A1:I1204
//     Name,City,…
//     [The text stops here: 53210 more characters (1000 rows) were left out. The whole file is at /home/user/uploads/thread-1/0b2f….xlsx in the sandbox.]
//
// Names are display names: the file name, else the media type as sent,
// else "file", without control characters and terminal escape sequences,
// at most 200 characters. A reason speaks of "An unnamed file" when the
// sender gave no file name.
//
// # Remembered refusals
//
// [RememberedRefusals] keeps, in a [RefusalLedger] (keel's thread stores
// are ledgers, so every process on one database shares them), which
// media types each model refused, by its provider and name, with the
// evidence and an expiry (24 h by default). The unsupported-file handler
// given them:
//
//   - at every call, handles each file of a type the model refuses as it
//     would after a refusal, before the call, so no call is doomed;
//   - remembers the type a refusal names at once; for a refusal that
//     names none, remembers each type in the refused request that is not
//     an image, a PDF or text, once the call without those files
//     succeeded (if it fails too, the files may not have been the cause;
//     a connection that failed teaches nothing); never a wildcard for the
//     model;
//   - forgets a type's refusal when a call that carried a file of that
//     type succeeds, which is how an expired entry ends: the file is sent
//     again, and if the model takes it the entry is gone.
//
// The ledger is read at most once per Refresh (30 s by default), so an
// entry forgotten elsewhere stops counting within that time; a check
// costs a map read. A ledger that fails never stops a run: the handler
// then acts as if nothing were remembered, and logs.
//
// # Files too large to go inline
//
// Given a store of provider file references
// ([UnsupportedFileOptions].ProviderFiles, a [memory.ProviderFiles]), the
// unsupported-file handler sends a file too large to go inline through
// the model's provider's own file store ([keel.FileStore]: Gemini's,
// OpenAI's and Anthropic's Files APIs) instead of taking it out of the
// prompt: the largest inline files of a request over the provider's
// inline limit, a file refused for its size, and a file remembered so
// that went by reference before. Each is uploaded once per scope and
// digest and named by reference on later turns until the provider drops
// it; a reference the provider no longer knows ([keel.FaultFileGone]) is
// forgotten and the file uploaded again, once per run. A file refused for
// its pages, and every file of a model without a file store (an
// OpenAI-compatible server), are handled as refused. Such a file is
// reported with the outcome [OutcomeProviderFile] and its reference.
//
// # Recoveries
//
// Each file handled is reported once per run with [Run.Report], as a
// [Recovery] whose Action is what its files got — "uploaded" (with the
// Path), "not-uploaded" (with the Reason, the sentence the model read),
// "placeholder", "converted" (with the [Conversion]: the converter's
// kind, what the file holds, the text's size and what the cap left out)
// or "provider-file" (with the reference the model got) — and whose files carry their name, media type, size and SHA-256. The
// unsupported-file handler's recoveries also carry their Cause: the
// provider's status, code and message, the SDK's refusal and the media
// type it named, or a remembered refusal with when it was learned and the
// evidence. The agent returns them in its result and sends them to a
// stream as they happen.
package processor
