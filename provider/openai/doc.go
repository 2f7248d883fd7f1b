// Package openai is keel's adapter for OpenAI's Chat Completions and
// Responses APIs, and for OpenAI-compatible servers (Ollama, vLLM,
// OpenRouter, LM Studio), over the official SDK
// (github.com/openai/openai-go/v3).
//
// # Configuration
//
// [New] takes a model name and [Options]. The key comes from
// [Options.APIKey], else OPENAI_API_KEY; the base URL (with its version
// path, such as http://host:port/v1) from [Options.BaseURL], else
// OPENAI_BASE_URL, else https://api.openai.com/v1. OPENAI_ORG_ID and
// OPENAI_PROJECT_ID are honoured. An OpenAI-compatible server is chosen
// with [Options.ProviderName] (such as "ollama"): then only
// OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_API_KEY are read, a base
// URL is required and a key is optional, and no OPENAI_* value is ever
// sent to that server. The SDK's retries are off: keel's processors
// retry.
//
// # Files
//
// Chat Completions ([APIChat], the default) sends:
//   - image/*: an image_url part, with a data: URL for inline data or the
//     http(s) URL as is;
//   - audio/wav, audio/mpeg and audio/mp3: an input_audio part (inline data
//     only);
//   - application/pdf: a file part with file_data (a data: URL) and a file
//     name (part-N.pdf when the part has none), or file_id for a provider
//     file ID such as "file-abc123".
//
// It refuses, before sending, with a [keel.UnsupportedFunctionalityError]
// (whose MediaType is the file's media type as the part gave it, for the
// refusals of a type) whose Functionality is
//   - "file part media type <type>" for any other type,
//   - "PDF file parts with URLs", "audio file parts with URLs",
//     "audio content parts with media type <type>" (other audio types),
//   - "image file parts with file IDs" and "file parts in assistant
//     messages".
//
// The Responses API ([APIResponses]) sends image/* as input_image and
// every document (application/pdf, and docx, xlsx, csv and the rest,
// which it reads itself) as input_file (file_data, file_url or file_id);
// [Options.OnlyPDFDocuments] makes it refuse documents but PDFs with
// "file part media type <type>", as Chat Completions does. Audio and
// video are refused either way. The model's answer then says whether it
// read a document: keel converts one only after a refusal.
//
// Images of a format OpenAI does not read (anything but png, jpeg, gif
// and webp, such as HEIC, TIFF, BMP or SVG) are refused before sending
// with "image part media type <type>", with either API and for
// OpenAI-compatible servers too, unless [Options.ImageTypes] lists them.
// A compatible server gets a user message that holds only text as a
// string, not a list of parts: servers for text models (Groq's) take
// nothing else.
//
// Inline file contents are base64-encoded into the request body while it
// is sent, a chunk at a time, so a 10 MiB PDF costs well under 1 MiB of
// memory beyond the file itself rather than several copies of it.
//
// # Errors
//
// Every HTTP failure is a [keel.APICallError] built in one place
// (error.go), with the status, headers (Retry-After, x-should-retry), raw
// body, OpenAI's error type, its code as Code (its type when the code is
// null, as for server_error), and its message; errors.As still reaches
// the SDK's *openai.Error ([sdk.Error]). Retryable follows the status and
// headers, and is also set when the message says "You can retry your
// request" (unless x-should-retry says false). A 400 that names the type
// it refused ("... unsupported MIME type '<type>'") carries that type as
// MediaType. An error event inside a stream is an APICallError with the
// status its code implies (rate_limit_exceeded 429, server_error 500, ...).
//
// A connection failure is an APICallError with StatusCode 0, retryable. So
// is an answer that broke off, its cause the read's error (a reset
// connection's syscall.ECONNRESET, even when the reset cut an event in
// half), a stream that ended before its last event (io.ErrUnexpectedEOF),
// and a provider that stayed silent: [Options.IdleTimeout] (60 s) bounds
// each wait once an answer has started, [Options.FirstByteTimeout] (10
// minutes) the wait for its first byte, and passing either ends the call
// with [keel.ErrIdleTimeout] as the cause. Context errors pass through
// unchanged.
//
// # SDK quirks
//
//   - The SDK's error text is only "OpenAI API error: 400 Bad Request"; the
//     provider's message is in keel's error.
//   - The SDK parses an error body only when it is JSON with an "error"
//     object; the adapter keeps the raw body of any error status itself.
//   - The SDK's Responses types are unions of every hosted tool; the
//     adapter reads the few fields it needs from the raw JSON.
//   - Marshalling a 10 MiB PDF as a data-URL string through the SDK's
//     params peaks at about 173 MiB of heap and takes about 240 ms on the
//     reference machine; that is why the adapter marshals a placeholder and
//     streams the base64 into the body as it is sent (0.3 MiB, about 17
//     ms).
//
// [sdk.Error]: https://pkg.go.dev/github.com/openai/openai-go/v3#Error
package openai
