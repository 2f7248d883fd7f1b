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
//   - file parts (PDF as bytes and as a data URL, PNG, text, xlsx, WAV, an
//     image by URL) arrive intact, and a type the adapter refuses is refused
//     with the exact functionality string before anything is sent;
//   - every [ErrorKind] becomes a [keel.APICallError] with the status, raw
//     body, headers, parsed message, retryable flag and the SDK's own error
//     as its cause, for generate and stream calls; errors inside a stream;
//   - Retry-After and x-should-retry are kept, x-should-retry decides the
//     retryable flag, and the SDK sends a 503 once (its retries are off);
//   - context deadlines and cancellation pass through, a consumer that stops
//     a stream early closes the connection, and a refused connection is an
//     [keel.APICallError] with status 0, retryable.
//
// # Server
//
// [Server] answers scripted [Reply] values in order (the last one repeats)
// and records every [Recorded] request; adapters' own tests use it too.
// A Reply can be held back ([Reply.Delay]) or stalled before its last event
// ([Reply.Stall]) to test cancellation.
//
// # Memory
//
// [PeakHeap] samples the heap while a call runs and returns its peak above
// the starting point; [BenchmarkPeakHeap] reports it as "peak-MiB" for a
// request such as [PDFRequest] carrying [PDF10MiB], so every adapter's
// large-file figure is measured the same way.
package providertest
