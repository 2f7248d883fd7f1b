// Package sqlstore holds what the SQL-backed memory stores (pgstore and
// sqlitestore) do alike, apart from the SQL itself: loading and ordering
// the numbered schema migrations, paging a count and a window of rows,
// reading each blob once and checking it, ordering threads, and reporting
// a missing thread and another resource's thread alike.
//
// # What stays in the stores
//
// The SQL text (placeholders, tables, locks and upserts differ by
// dialect), the drivers' transactions and row iteration (pgx and
// database/sql share no interface beyond [Row]), and how each store scans
// its times. The helpers here take a [Row] or a function to call, so they
// never see a driver.
package sqlstore
