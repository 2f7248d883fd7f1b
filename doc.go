// Package keel is the provider-neutral core of the keel agent runtime:
// messages and their parts, the [Model] contract every provider adapter
// implements, and the two errors those adapters report.
//
// keel's reason to exist is an agent that keeps working when a model
// refuses what a user sent it. The agent package runs the loop; the
// processor package decides what happens when a call fails. This package
// only defines the values they pass around, and imports nothing but the
// standard library.
//
// # Messages
//
// A [Message] has a [Role] and [Part]s: [TextPart], [FilePart],
// [ToolCallPart] and [ToolResultPart]. Parts are values, so
// [Message.Clone] copies a message's part list without copying file
// bytes: a prompt can be rewritten for one model call while the stored
// message keeps its file.
//
// A [FilePart] holds its content inline (bytes or a data: URL) or refers to
// it (an http(s) URL or a provider's file reference). [FilePart.InlineData]
// gives the bytes of inline content whatever its form.
//
// # Errors
//
// Adapters turn every failure into one of two errors, found with
// errors.As:
//
//   - [UnsupportedFunctionalityError]: the adapter refused the request
//     before sending it, for example a media type its SDK cannot encode.
//   - [APICallError]: the provider answered with an error status, or could
//     not be reached. The SDK's own error stays reachable as its cause.
//
// # Media types
//
// [IsReadable] tells the files every model is expected to read (images,
// text, PDFs) from the others, which processors take out of a prompt once
// a model refused one.
package keel
