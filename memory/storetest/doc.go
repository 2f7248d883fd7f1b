// Package storetest is the conformance suite every [memory.Store] passes.
//
// # Use
//
// A store's package runs the suite from one test, opening a fresh, empty
// store for each case:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) memory.Store {
//			s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// # What it checks
//
// Round trips of every part kind with exact bytes (a 10 MiB file, an empty
// file, a file with no name, URLs of every kind, tool JSON as it was
// written), refusal of bad input with [memory.ErrInvalid] and nothing
// written, paging and ordering of threads and messages, ownership (another
// resource's thread is [memory.ErrNotFound] for every operation),
// deletion, blob reference counting and single reads (for stores that are
// a [memory.BlobReporter]), concurrent writers, the typed errors, history
// windows ([memory.ListMessagesOptions.Last]) and message counts, the
// SHA-256 of every file returned, [memory.Store.ThreadOwner], and, for a
// [memory.RefusalLedger], recording, lookup, expiry (with the caller's
// clock, no waiting), listing and forgetting; for a
// [memory.ProviderFiles], saving, lookup by scope and digest (expired
// entries included), replacing, forgetting and bad input.
//
// [RunShared] checks what two store values on one database see of each
// other at once: threads, refusals and provider file references written by
// one, read by the other.
//
// # Benchmarks
//
// [Benchmark] measures saving and loading a thread with files, loading
// the last 10 messages of and saving to threads of 20 and 100,000
// messages, and a refusal lookup.
package storetest
