// Package sqlitestore is a [memory.Store] in one SQLite file, the embedded
// default: pure Go (modernc.org/sqlite), no server, no cgo.
//
// # Opening
//
// [Open] creates the file on first use and brings its schema up to date
// with the migrations embedded in the program (numbered files; the file's
// schema_version table says which have run). Opening a file whose schema
// is newer than the program fails rather than guessing.
//
// # Concurrency and crashes
//
// The file is in WAL mode: readers never wait for a writer. Writes take
// SQLite's write lock when their transaction begins, and wait up to
// [BusyTimeout] for another process's, so several goroutines and several
// processes may write one file. Each call is all or nothing: a process
// killed while saving leaves the whole message or none of it. The file
// syncs at checkpoints rather than at every commit (synchronous=NORMAL):
// a power failure may lose the last saves, but never leaves half of one.
// A goroutine of the store copies the log into the file beside the
// writes (see checkpoint.go), so no save waits for the log to be copied,
// and makes the log start over even while readers keep SQLite from doing
// so by itself. Errors SQLite gives for a locked file are told by their
// code, never by their text.
//
// # Performance
//
// A store keeps a few connections open, with its statements prepared
// once for its life. Writes of one store that wait while another commits
// share the next transaction, each in its own savepoint, so that under
// load one commit serves many calls; a call returns only once its
// transaction has committed. A call's context ends its wait for its
// turn; in a shared transaction it is checked before the call runs, and
// the wait for another process's lock is bounded by [BusyTimeout].
//
// # Files
//
// File bytes are kept once per SHA-256 in a blobs table, with a row per
// message that holds each; a blob goes with the last message holding it.
// Every blob read is checked against its digest, and a mismatch is an
// error wrapping [memory.ErrCorrupt]. Loading a page of messages reads
// each blob it needs once.
//
// # Schema
//
// Tables are named as in PostgreSQL (keel_threads, keel_messages,
// keel_blobs, keel_message_blobs, keel_refusals, keel_provider_files), so
// that both stores run the same statements; times are Unix milliseconds.
// A thread's row counts its messages (a trigger raises the count with
// each insert), and the
// count gives a new message its place; the last messages are read from
// the end of the index on (thread, created_at, seq): saving to and loading
// a window of a thread of 100,000 messages cost about what they cost for
// 20.
package sqlitestore
