// Package sqlstore is the body the SQL-backed memory stores (pgstore and
// sqlitestore) share: every method of their API, written once over a
// small [DB] and [Tx] each store implements for its driver, with one set
// of statements both databases run, and the numbered schema migrations.
//
// # What stays in the stores
//
// Opening, migrating and closing; the drivers' transactions (SQLite's
// group-commit writer, PostgreSQL's retries of aborted transactions); how
// each database keeps times (SQLite as Unix milliseconds, converted by
// its Tx); and whether it takes row locks ([Config.RowLocks]). Everything
// else, from the ownership checks to the reference counting of blobs,
// is here.
package sqlstore
