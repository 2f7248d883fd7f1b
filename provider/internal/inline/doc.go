// Package inline writes the base64 of a request's inline files into the
// request body while it is sent, for keel's three provider adapters.
//
// Every SDK builds its request body by marshalling its typed parameters,
// and each of them holds a file's base64 several times over on the way:
// the base64 string, the encoder's growing buffers, the finished body (and
// genai turns the request into JSON three times). For a 10 MiB PDF that
// measured 67 MiB (Gemini), 160 MiB (Anthropic) and 173 MiB (OpenAI) of
// peak heap. So an adapter gives the SDK a short placeholder where each
// file's base64 goes ([Files.Text] for a string field, [Files.Bytes] for
// a []byte field the SDK encodes itself), and [Files.Request] replaces
// each placeholder while the body is sent, encoding the caller's bytes a
// chunk at a time: a file then costs no copy at all. A base64 data: URL
// whose payload already is standard, padded base64 is written as it is,
// neither decoded nor encoded again.
//
// A placeholder is the base64 of 24 bytes, 16 of them random per request:
// the SDKs' JSON encoders write its characters unescaped, no text a caller
// sends can be taken for it, and no placeholder is the start of another.
package inline
