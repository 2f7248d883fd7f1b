// Package stored is the form in which every memory store keeps messages,
// and the rules all of them apply: the in-memory store (package memory)
// and the SQL stores (through package sqlstore) share it, so that a
// message reads back the same whichever store kept it.
//
// It holds the errors the stores wrap (package memory exports them), the
// rule for IDs, the encoding of messages (inline files replaced by the
// SHA-256 of their bytes, kept apart as blobs), the precision of stored
// times, and the window of a page. It imports only the root keel package,
// so that package memory can import it.
package stored
