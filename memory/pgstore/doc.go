// Package pgstore is a [memory.Store] in PostgreSQL, for several keel
// servers sharing one database: any server can serve any thread, and what
// one server learns of a model's refusals ([memory.RefusalLedger]) every
// other knows at its next lookup.
//
// # Opening
//
// [Open] takes a postgres:// URL, as pgx does, and brings the schema up to
// date with the migrations embedded in the program, in one transaction
// under an advisory lock, so servers started at once migrate the database
// once. The keel_schema_version table says which migrations have run; a
// database newer than the program is refused. Tables are prefixed keel_,
// as the database may hold others.
//
// # Concurrency
//
// Each call is one transaction. Writers of one thread take turns on its
// row; writers of different threads run side by side. A transaction that
// PostgreSQL aborts for a deadlock or a conflict with another is run again
// (a few times, then its error is returned).
//
// # Windows and counts
//
// A thread's row counts its messages (a trigger raises the count with
// each insert), and the count gives a new message its place; the last
// messages are read from the end of the index on (thread, created_at,
// seq): loading the last messages of a thread and saving to it cost about
// the same for 20 messages as for 100,000.
//
// # Files
//
// File bytes are kept once per SHA-256 in keel_blobs, with a row per
// message holding each; a blob goes with the last message holding it. The
// foreign key from those rows to the blob locks it while a message holding
// it is saved, so a concurrent delete never takes a blob from under a
// message. Every blob read is checked against its digest and size, and a
// mismatch is an error wrapping [memory.ErrCorrupt]. Loading a page of
// messages reads each blob it needs once.
//
// # Servers together
//
// Three things let servers on one database act as one. Turns accepted and
// not yet run wait in keel_turns ([memory.TurnQueue]), the user's message
// whole, until a server runs them. A thread is locked for every server
// ([Store.LockThread]) with pg_advisory_lock(0x6b65656c, hashtext(thread
// id)) on a session of its own, from a pool apart from the store's (at
// most 32 sessions, so turns waiting for locks never take the store's
// connections): the database drops a dead server's sessions, and with
// them its locks. Events reach every server ([Store.Publish],
// [Store.Listen]) by NOTIFY on the channel keel_events, each batch in one
// transaction, which PostgreSQL delivers at commit and in order; an event
// of more than 7000 bytes (a notification takes fewer than 8000) is
// stored in keel_events and notified as "@" and its row's id, and rows
// older than ten minutes are pruned. A listener holds a connection of its
// own; a notification sent while it reconnects is lost.
package pgstore
