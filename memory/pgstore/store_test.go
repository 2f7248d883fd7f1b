package pgstore_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/pgstore"
	"github.com/keel-go/keel/memory/storetest"
)

// TestMain gives the examples a database in DATABASE_URL, as a program
// would be given one.
func TestMain(m *testing.M) {
	url, err := pgtest.NewDatabase()
	switch {
	case errors.Is(err, pgtest.ErrNoBinaries) && os.Getenv("CI") == "":
		flag.Parse()
		flag.Set("test.skip", "^Example")
		fmt.Fprintln(os.Stderr, "pgstore: examples skipped:", pgtest.SkipReason)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	default:
		os.Setenv("DATABASE_URL", url)
	}
	os.Exit(pgtest.Run(m))
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) memory.Store {
		return open(t, pgtest.Start(t))
	})
}

// TestShared opens two stores (two pools) on one database, as two servers
// would.
func TestShared(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (memory.Store, memory.Store) {
		url := pgtest.Start(t)
		return open(t, url), open(t, url)
	})
}

func BenchmarkThread(b *testing.B) {
	storetest.Benchmark(b, func(b *testing.B) memory.Store {
		return open(b, pgtest.Start(b))
	})
}

func open(t testing.TB, url string) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open(%q) = %v; want no error", url, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
