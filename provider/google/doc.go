// Package google is keel's adapter for Google's Gemini API (not Vertex AI),
// built on the official SDK, [google.golang.org/genai]. [New] returns a
// [Model] that implements [keel.Model].
//
//	m, err := google.New("gemini-2.5-flash", google.Options{})
//
// # Configuration
//
// The API key is [Options.APIKey], else GOOGLE_GENERATIVE_AI_API_KEY, else
// GOOGLE_API_KEY, else GEMINI_API_KEY; without one, [New] fails with an
// error wrapping [ErrNoAPIKey] that names the variable to set. The base URL
// is [Options.BaseURL], else GOOGLE_GEMINI_BASE_URL, else [DefaultBaseURL];
// it is the API's root ("http://127.0.0.1:8080"), and the SDK adds
// "/v1beta/models/<model>:generateContent" (":streamGenerateContent?alt=sse"
// for [Model.Stream]). The adapter always hands the SDK the backend and
// base URL it resolved, so the SDK's own environment
// (GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL) and
// genai.SetDefaultBaseURLs cannot override an explicit option.
//
// # Requests
//
// System messages become the system instruction. User and tool messages
// are "user" turns, assistant messages "model" turns; consecutive turns of
// one role are merged, so the results of parallel tool calls travel
// together. Tools are function declarations with their JSON Schema as
// parametersJsonSchema; ToolChoice "auto", "none", "required" and a tool's
// name map to the modes AUTO, NONE, ANY and ANY with that one function.
// A tool result is a functionResponse whose response is the tool's output
// when it is a JSON object, {"result": output} otherwise, and
// {"error": output} for a failed tool. Tool call IDs go back as the
// functionCall and functionResponse id.
//
// # Files
//
// Gemini refuses nothing up front: the adapter never returns a
// [keel.UnsupportedFunctionalityError].
//
//   - Inline files (bytes or data: URLs) of every media type go as
//     inlineData{mimeType, data}, data being base64. The media type is
//     normalised (no parameters); an empty one is application/octet-stream.
//     Gemini's parts have no file name, so names are not sent.
//   - Files by http(s) URL or by Gemini file URI go as
//     fileData{fileUri, mimeType}; the adapter downloads nothing.
//
// The API itself rejects the types it does not read, for example with 400
// INVALID_ARGUMENT "Unsupported MIME type: application/vnd...sheet", and
// answers some with 500 or 502 INTERNAL, which says nothing about the file.
// Both are [keel.APICallError]s; keel's unsupported-file handler takes such
// files out of the prompt and calls again.
//
// # Files API
//
// Every [Model] has Gemini's Files API as its [keel.FileStore]
// ([Model.FileStore]): keel's unsupported-file handler uploads a file
// there when a request's inline files would pass Gemini's 20 MB limit
// ([InlineLimit]) or Gemini answered "Request payload size exceeds the
// limit", and sends the file's URI as fileData instead. The upload is the
// SDK's resumable protocol (a start, then "upload, finalize") in two
// requests, the file read straight into the connection: the SDK's own
// Files.Upload reads it into an 8 MiB buffer of its own first. A file
// Gemini is still processing is waited for, up to two minutes. The upload
// URL Gemini gives is used on the base URL's host only, since the key goes
// with it. Gemini keeps a file 48 hours (its expirationTime, the
// reference's ExpiresAt); a request naming a file it no longer keeps is
// answered 403 "You do not have permission to access the File ... or it
// may not exist.", which is a [keel.APICallError] with
// [keel.FaultFileGone]. A reference's scope ([keel.FileStore].FileScope)
// is the base URL and a hash of the key: files belong to the key's
// project, and any of its models reads them.
//
// The SDK encodes a request several times over (struct, JSON, map, JSON),
// which would hold a 10 MiB file's base64 three or four times at once. So
// inline files go through the SDK as small placeholders, and the adapter's
// transport writes each file's base64 into the body while the request is
// sent, straight from the caller's bytes.
//
// # Errors
//
// Every failed call is a [keel.APICallError] with the status, the response
// headers, the raw body, Gemini's status as Type ("INVALID_ARGUMENT"), the
// ErrorInfo reason or else the status as Code, the message, Retryable by
// the status, and the SDK's [genai.APIError] as its cause (a value: use
// errors.As with a genai.APIError target, not a pointer). A 400
// "Unsupported MIME type: <type>" carries that type as MediaType. The SDK
// keeps neither headers nor body, so the adapter's transport records
// them. A connection failure is an APICallError with StatusCode 0,
// retryable; an error chunk inside a stream is one with the chunk's code
// as its status.
//
// An answer that broke off is an APICallError with StatusCode 0, retryable,
// whose cause is the read's error (a reset connection's
// syscall.ECONNRESET): the SDK itself reports a reset inside an event as
// the JSON error of the half event it got. A provider that stays silent
// ends the call the same way with [keel.ErrIdleTimeout] as the cause:
// [Options.IdleTimeout] (60 s) bounds each wait once an answer has
// started, [Options.FirstByteTimeout] (10 minutes) the wait for its first
// byte, since Gemini may think for minutes before its first chunk. Context cancellation and
// deadlines come back as the context's error. An answer that ends with
// MALFORMED_FUNCTION_CALL and no tool call is an APICallError with Code
// [FinishMalformedFunctionCall], for keel's retry processor. A 429
// RESOURCE_EXHAUSTED says how long to wait in its body (a
// google.rpc.RetryInfo detail, "retryDelay": "38s") rather than in a
// Retry-After header: it becomes the error's RetryDelay, which
// keel.APICallError.RetryAfter and so the retry processor honour.
//
// The SDK's retries are off (no RetryOptions), and so is its automatic
// continuation of unfinished answers: one keel call is one HTTP request.
//
// # Quirks
//
//   - Gemini may give no tool call ID; the adapter makes one from the
//     response ID and the call's position ("call_<responseId>_<n>"), the
//     same whether the answer was streamed or not.
//   - Gemini 3 wants the thought signature of its function calls back with
//     them. keel's tool call parts have no room for it, so a [Model] keeps
//     the signatures it received, by call ID (the latest 4096); a call whose
//     signature it does not know is sent with [SkipThoughtSignature].
//   - Gemini sends a function call whole, never in argument deltas.
//   - Usage counts thinking tokens as output tokens: they are billed so.
//   - A stream request answered with plain JSON (a server that does not
//     stream) is read as a stream of those responses.
//   - The SDK drops Gemini's finishMessage, so the error of a malformed
//     function call cannot quote it.
//   - A timeout of [Options.HTTPClient] is an APICallError with StatusCode
//     0, but its cause wraps context.DeadlineExceeded (net/http makes it
//     so), which keel's retry processor reads as final.
//
// See [github.com/keel-go/keel/provider/google/googletest] for a local
// server speaking the Gemini API, for tests.
package google
