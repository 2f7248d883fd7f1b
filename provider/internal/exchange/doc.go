// Package exchange watches the one HTTP exchange of a model call for
// keel's provider adapters: it bounds how long the provider may stay
// silent, and keeps what the provider answered (the URL, status, headers,
// an error's body, and how an answer that broke off broke) so that each
// adapter's error.go builds keel's error from facts rather than from the
// SDK's text.
//
// # Silence
//
// A provider that stops sending holds a call, and the run behind it,
// forever: no SDK bounds the wait between two bytes, and a deadline on the
// whole call would cut long answers short. [Exchange.Do] bounds each wait
// instead:
//
//   - while the request is sent, the wait for the provider to take more of
//     it: the idle timeout;
//   - once it is sent, the wait for the answer's first byte (its headers,
//     then the first byte of its body): the first-byte timeout, long,
//     because a model may think for minutes before it writes anything,
//     streamed or not;
//   - once the body has started, each wait for more of it: the idle
//     timeout.
//
// Only waits on the provider count: the time the caller takes between two
// reads of a stream is its own. When a bound is passed the request is
// cancelled and the call fails with an error wrapping keel.ErrIdleTimeout,
// which the adapters turn into a retryable keel.APICallError.
//
// # Broken answers
//
// When reading the body fails (a reset connection, a body cut short), the
// SDKs report what they made of the bytes they got: genai, for one, a JSON
// error for an event cut in half. [Exchange.Broken] gives the read error
// itself, so that the call's error says the connection broke and keel's
// stream retry treats it as the connection reset it is.
//
// # Progress
//
// Each phase (sending, waiting for the answer, each read of it, the end)
// is told to the keel.CallProgress the request's context carries, if
// any, so that a caller bounding a whole run can say what stalled when
// its bound passes.
package exchange
