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
// that draw themselves end; nesting and tokens are capped. Errors are a
// [*LimitError], a [*FormatError], [ErrEncrypted] or the context's.
package pdf
