// Package providertest is the conformance suite every keel provider
// adapter runs: the adapter talks to an [httptest.Server] that speaks the
// provider's real wire protocol, and the suite checks what the adapter sent
// and what it made of the answers.
//
// # Using it
//
// An adapter's test fills a [Harness] with the pieces of its provider's
// protocol (success bodies, server-sent event streams, the provider's real
// error bodies, and decoders for the request bodies) and calls [Run]:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Harness{Provider: "openai", NewModel: ..., Text: ...})
//	}
//
// # What it checks
//
//   - text and tool-calling round trips, generated and streamed, with system
//     instructions, usage, finish reasons, response and model IDs;
//   - per-call headers reach the server;
//   - file parts (PDF as bytes and as a data URL, PNG, text, CSV, xlsx,
//     WAV, an image by URL) arrive intact, and a type the adapter refuses
//     is refused with the exact functionality string, and the refused
//     media type as the part gave it, before anything is sent;
//   - every [ErrorKind] (400, a refused file, 401, 403, 404, 429, 500, 502,
//     503, and 529 where the provider has it) becomes a
//     [keel.APICallError] with the status, raw body, headers, parsed
//     message, the Code and retryable flag the answer implies, the media
//     type a refusal names, and the SDK's own error as its cause, for
//     generate and stream calls; errors inside a stream;
//   - Retry-After and x-should-retry are kept, x-should-retry decides the
//     retryable flag, and the SDK sends a 503 once (its retries are off);
//   - context deadlines and cancellation pass through, a consumer that stops
//     a stream early closes the connection, and a refused connection is an
//     [keel.APICallError] with status 0, retryable;
//   - a provider that stalls mid-stream or half way through a body, or
//     never answers, ends the call after the (short) idle or first-byte
//     timeout with a retryable APICallError caused by keel.ErrIdleTimeout,
//     and a slow first byte within its bound is waited for;
//   - a connection reset inside a streamed event, or half way through a
//     body, is a retryable APICallError caused by syscall.ECONNRESET.
//
// # Server
//
// [Server] answers scripted [Reply] values in order (the last one repeats),
// or what a function makes of each request ([NewServerFunc]), and records
// every [Recorded] request; adapters' own tests use it too. A Reply can be
// held back ([Reply.Delay]), stalled before its last event ([Reply.Stall])
// or after some bytes ([Reply.StallAfter]), or cut by a connection reset
// ([Reply.ResetAfter], [EventCut]).
//
// # Memory
//
// [PeakHeap] samples the heap while a call runs and returns its peak above
// the starting point; [BenchmarkPeakHeap] reports it as "peak-MiB" for a
// request such as [PDFRequest] carrying [PDF10MiB], so every adapter's
// large-file figure is measured the same way.
package providertest
