// Package pgtest starts a throwaway PostgreSQL server for tests, and gives
// each test a fresh database on it.
//
// # Use
//
// One server serves a whole test binary; [Run] stops it when the tests are
// done:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.Start(t) // a new, empty database
//		...
//	}
//
// # The server
//
// The server is Debian's PostgreSQL (the newest of
// /usr/lib/postgresql/*/bin, else initdb and pg_ctl on PATH, or only the
// directory named by the KEEL_PG_BINDIR environment variable): a cluster
// made by initdb in a temporary directory, trusting local connections,
// listening on 127.0.0.1 on a free port and on a socket in that
// directory, with fsync off (its data is thrown away). Run as root, the
// cluster belongs to the postgres user and the commands run through
// runuser, as PostgreSQL refuses to run as root.
//
// # Without PostgreSQL
//
// When the binaries are missing, [Start] skips the test saying so, except
// when the CI environment variable is set: there it fails, so that a
// missing install never passes for a green run. The Debian packages are
// postgresql (or postgresql-15) and, for psql, postgresql-client.
package pgtest
