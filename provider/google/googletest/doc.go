// Package googletest speaks the Gemini API's wire protocol for tests: a
// local [Server] answering generateContent and streamGenerateContent
// (alt=sse) the way Gemini does, the real success, stream and error bodies
// as strings, and a decoder for the request bodies an adapter sent.
//
// # Server
//
// A [Server] answers every request with [Options.Text], streamed word by
// word when the request asked for a stream, unless the request carries an
// inline file of a type listed in [Options.Unsupported] (Gemini's real 400
// INVALID_ARGUMENT "Unsupported MIME type: <type>") or [Options.Internal]
// (Gemini's real 502 INTERNAL, which names nothing). [Options.Respond]
// scripts anything else, such as tool calls. Every request is recorded:
//
//	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsx}})
//	m, _ := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
//	// ... call m ...
//	body, _ := srv.Requests()[0].Decode()
//	body.InlineMediaTypes() // the files that went inline
//
// # Files API
//
// The server also speaks the Files API's resumable upload (POST
// /upload/v1beta/files with X-Goog-Upload-Command start, then the bytes
// with "upload" and "upload, finalize", as the SDK's Files.Upload and
// keel's adapter send them) and GET /v1beta/files/<id>. [Server.Uploads]
// lists what it received, by digest; a file expires [Options.FileTTL]
// after its upload (48 hours by default; [Server.SetFileTTL] changes it),
// or at once with [Server.DeleteFile], and a request naming it by fileData
// is then answered with Gemini's real 403 ([FileGoneBody]).
// [Options.PayloadLimit] makes the server answer a request body over it
// with Gemini's 400 "Request payload size exceeds the limit".
//
// # Bodies
//
// [TextBody], [ToolCallBody], [StreamTextBody], [StreamToolCallBody],
// [StreamErrorBody], [ErrorBody], [UnsupportedMIMEBody] and [InternalBody]
// are the bodies Gemini answers with; they report the usage, response ID
// and model version of the provider conformance suite
// ([github.com/keel-go/keel/provider/providertest]), so they serve as its
// harness too.
package googletest
