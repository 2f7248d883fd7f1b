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
// # Bodies
//
// [TextBody], [ToolCallBody], [StreamTextBody], [StreamToolCallBody],
// [StreamErrorBody], [ErrorBody], [UnsupportedMIMEBody] and [InternalBody]
// are the bodies Gemini answers with; they report the usage, response ID
// and model version of the provider conformance suite
// ([github.com/keel-go/keel/provider/providertest]), so they serve as its
// harness too.
package googletest
