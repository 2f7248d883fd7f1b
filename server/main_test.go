package server_test

import (
	"os"
	"testing"

	"github.com/keel-go/keel/internal/pgtest"
)

// TestMain stops the PostgreSQL server the tests and benchmarks that use
// one started.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
