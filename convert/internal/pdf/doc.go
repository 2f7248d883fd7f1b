// Package pdf reads the text of PDF documents, for package convert.
//
// It parses the file's objects (cross-reference tables and streams,
// object streams, and, when the table is broken, the objects found by
// scanning the file), runs each page's content streams and the form
// XObjects they draw, decodes text through the fonts' ToUnicode CMaps,
// encodings and glyph names, and puts the glyphs into lines in the order
// the content draws them (see [Document.Text]).
//
// # Bounds
//
// Nothing in the file is trusted: a stream's /Length is checked against
// its "endstream"; decoded bytes count against [Limits].MaxUnpacked as
// they are decoded, and content streams are read through a 32 KiB window
// and never held whole, so a deflate bomb costs time up to the limit and
// no memory; reference chains and loops, page trees that loop and forms
// that draw themselves end; nesting is capped, and so is the work of
// reading ([Limits].MaxTokens counts tokens, the bytes they span, glyphs
// and form runs), so that neither objects left open to the end of the
// file nor forms drawing each other twice over forty levels run on. A
// line's text, the operands waiting for an operator and the decoded
// forms kept for drawing again are capped too. Errors are a
// [*LimitError], a [*FormatError] (which [ErrPassword] is) or the
// context's.
//
// # Encryption
//
// A document encrypted by the standard security handler is read when
// its user password is empty, as every reader opens it without asking:
// revisions 2 to 4 (RC4 of 40 to 128 bits, AES-128 through crypt
// filters) and 5 and 6 (AES-256). Strings are decrypted as objects are
// read, streams as they are decoded, with each object's own key.
// Another password, or another security handler, is a typed error, and
// so is data that does not decrypt (AES data cut inside a block, wrong
// padding): the text is not guessed at.
package pdf
