// Package memory keeps conversations: threads owned by a resource (a user,
// an account) and the messages in them, files included; and, for the
// runtime, what each model refused.
//
// # Stores
//
// [Store] is the contract the agent loop and the server use. Three stores
// implement it and pass one conformance suite (package storetest):
//
//   - [InMemory], from [NewInMemory]: for tests and for agents that need
//     no history across restarts.
//   - sqlitestore: one SQLite file, the embedded default.
//   - pgstore: PostgreSQL, for several servers sharing one database.
//
// # What a store keeps
//
// A stored message reads back exactly as it was saved: every part kind,
// file bytes byte for byte (an empty file stays an empty file, not a
// missing one), URLs, media types, names, tool inputs and outputs as their
// exact JSON bytes. Metadata is JSON, so its numbers come back as float64.
// Times are kept in UTC to the millisecond.
//
// File bytes are kept once per content, addressed by their SHA-256: two
// messages holding the same file share one blob, and a blob goes when the
// last message holding it is deleted or replaced. The digest is checked
// on every read, so damaged storage is an error wrapping [ErrCorrupt],
// never a wrong file. Every file part a store returns with its bytes
// (inline, or as a base64 data: URL) carries that digest in
// [keel.FilePart.SHA256], so nothing downstream hashes it again. Loading
// a page of messages reads each blob it needs once.
//
// # History windows
//
// [ListMessagesOptions.Last] reads only a thread's last messages, the
// window an agent sends a model, at a cost that does not grow with the
// thread: the stores read those rows from an index on the thread and the
// messages' order, and keep each thread's [Thread.MessageCount] as they
// save, so nothing counts rows either. A window is the end of the
// thread's order (see [ListMessagesOptions]).
//
// # Ownership
//
// Every call names the resource it acts for. A thread of another resource
// is reported as not found ([ErrNotFound]), exactly as a missing one is:
// a store never tells one resource anything about another's threads.
// [Store.ThreadOwner] alone finds a thread by its ID, for the runtime's
// own checks, which must keep that rule towards their callers.
//
// # Errors
//
// Errors wrap [ErrNotFound], [ErrConflict], [ErrInvalid] or [ErrCorrupt]
// for errors.Is. Bad input is refused before anything is written: IDs
// outside [ValidID], text, titles or file names that are not UTF-8, a
// file with both bytes and a URL, metadata that is not JSON.
//
// # Optional capabilities
//
// A store may implement more, found by type assertion: [ThreadStarter]
// creates a thread and saves its first messages in one transaction (the
// agent uses it for a run's first turn, saving a commit), [BlobReporter]
// counts blobs and blob reads (for tests and benchmarks), and
// [RefusalLedger] remembers which file types each model refused, for
// every server on the store's database, and [TurnQueue] keeps the turns
// accepted for a thread until one runs them, so that none is lost when a
// server stops or dies. All three stores implement them all.
// PostgreSQL's store, which several servers share, also locks a thread
// for all of them ([ThreadLocker]) and carries each thread's live events
// from server to server ([EventBus]).
//
// # Writing a store
//
// A store of another package applies the rules of this one with
// [CheckID], [NewThread], [CheckThread], [ListThreadsOptions.Normalize],
// [ListMessagesOptions.Check], [Refusal.Normalize] and [CheckTurn], and
// shows it keeps
// the contract by passing storetest. How it stores messages is its own
// business; the stores of this module share a stored form and SQL bodies
// that are not part of the API.
package memory
