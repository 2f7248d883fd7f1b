// Package anthropic is keel's adapter for Anthropic's Messages API, built
// on the official Go SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
//	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{})
//
// [New] reads the key from [Options].APIKey, else ANTHROPIC_API_KEY, and
// fails naming the variable when neither is set. The base URL comes from
// [Options].BaseURL, else ANTHROPIC_BASE_URL, else the SDK's default; it is
// the API's root (http://host:port), and the SDK adds /v1/messages.
//
// # Requests
//
// System messages become the system instructions wherever they appear in
// the prompt. Tool results travel as tool_result blocks of a user message,
// and consecutive messages of one role are merged, since the API expects
// user and assistant turns to alternate. Tools are sent with their JSON
// Schema as given; ToolChoice "required" is the API's "any", a tool's name
// forces that tool. max_tokens is required by the API: a request with
// MaxOutputTokens 0 sends [DefaultMaxOutputTokens] (4096). Temperature is
// sent when HasTemperature is set.
//
// # Files
//
// File parts are checked while the request is built, so a refused request
// sends nothing:
//
//   - image/jpeg, image/png, image/gif and image/webp go as image blocks
//     with a base64 source (bytes or a data: URL), a URL source (an
//     http(s) URL, which the API fetches) or a file source (an ID of the
//     Files API);
//   - application/pdf goes as a document block with a base64, URL or file
//     source;
//   - text/plain goes as a document block with a text source (the content
//     as a string) or a URL source;
//   - a document block is titled with the file's name, when it has one;
//   - anything else is refused with a [*keel.UnsupportedFunctionalityError]
//     whose Functionality is "media type: <type>" (the type without
//     parameters; "application/octet-stream" when the part names none) and
//     whose MediaType is the type as the part gave it.
//     Files in assistant messages are refused too ("file parts in
//     assistant messages").
//
// # Files API
//
// Every [Model] has Anthropic's Files API (beta) as its [keel.FileStore]
// ([Model.FileStore]): keel's unsupported-file handler uploads a file
// there when a request's inline files would pass [InlineLimit] (a
// request may be 32 MB in all) or the API refused a file for its size
// ("image exceeds 5 MB maximum"), and sends a file source (file_id)
// instead. Only what the Messages API reads by ID is uploaded (images of
// type jpeg, png, gif and webp, PDFs, plain text); any other type is
// refused before anything is sent. The upload carries the anthropic-beta
// header [FilesBeta], and so does every Messages call that names a file
// by ID (added to any beta the caller's headers give). The multipart body
// goes through the SDK's client with the file read into it as it is sent:
// the SDK's Beta.Files.Upload would copy the whole body into a buffer
// first. Anthropic keeps a file until it is deleted; keel deletes none
// (the same file serves every thread that sends it) and counts on a
// reference for 30 days, uploading the file again after that or when the
// API answers that it does not know it (a 404 "File not found", typed
// [keel.FaultFileGone]). A reference's scope is the base URL and a hash of
// the key.
//
// # Memory
//
// Inline file content never goes through the SDK's JSON encoding, which
// would hold several copies of it at once (over 150 MiB for a 10 MiB PDF).
// The parameters carry a short placeholder for each file, and an SDK
// middleware streams the file's base64 into the body while it is sent, a
// chunk at a time; a data: URL that already holds standard base64 is sent
// without being decoded. A 10 MiB PDF request needs well under 1 MiB of
// memory beyond the file itself.
//
// # Errors
//
// The SDK's retries are off: keel's processors own retrying, and every call
// sends one HTTP request. Every failure is classified in one place
// (error.go):
//
//   - an error status becomes a [*keel.APICallError] with the status, the
//     response headers (Retry-After, x-should-retry), the raw body, the
//     parsed error type, the error_code (else the type) as Code, the
//     message (else the status's text), Retryable by the status and
//     x-should-retry, and the *anthropic.Error as its cause (errors.As
//     reaches it);
//   - an error event inside a stream, such as overloaded_error, becomes a
//     [*keel.APICallError] with the status its type implies (529 for
//     overloaded_error, 429 for rate_limit_error, 500 for api_error, ...),
//     so it is retried like the same error sent as a status;
//   - a connection failure, an answer that broke off (its cause the read's
//     error, such as a reset connection's syscall.ECONNRESET, even when
//     the reset cut an event in half), or a stream cut before
//     message_stop (io.ErrUnexpectedEOF) is a [*keel.APICallError] with
//     StatusCode 0, retryable;
//   - so is a provider that stayed silent: [Options.IdleTimeout] (60 s)
//     bounds each wait once an answer has started, and
//     [Options.FirstByteTimeout] (10 minutes) the wait for its first byte;
//     the cause is [keel.ErrIdleTimeout];
//   - a cancelled or expired context gives an error that errors.Is
//     matches with context.Canceled or context.DeadlineExceeded.
//
// # Streaming
//
// [Model.Stream] yields text deltas as they arrive, each tool call once it
// is complete (its input_json_delta pieces joined), and a finish event
// with the stop reason, usage, message ID and model. Stopping the
// iteration early cancels the request. A server that answers a streaming
// request with one JSON message (some proxies ignore "stream": true) is
// read as if it had streamed it.
//
// # SDK quirks
//
//   - The SDK sends the key as "Authorization: Bearer <key>", not as
//     x-api-key.
//   - The SDK's typed parameters have no temperature field any more; the
//     adapter sends it as an extra body field.
//   - For a non-streaming call the SDK itself refuses, before sending, a
//     max_tokens so large that the answer could take over ten minutes
//     (about 21,000 tokens and up); use [Model.Stream] for those.
//   - Usage counts tokens read from and written to the prompt cache as
//     input, since the API reports them apart from input_tokens.
package anthropic
