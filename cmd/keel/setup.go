package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/pgstore"
	"github.com/keel-go/keel/memory/sqlitestore"
)

// Defaults of the flags that every command touching storage or the
// sandbox takes.
const (
	defaultDB       = "keel.db"
	defaultResource = "default"
	envDatabaseURL  = "KEEL_DATABASE_URL"
)

// storageFlags are the flags of every command that opens the store.
type storageFlags struct {
	db string
}

func (s *storageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.db, "db", "", "storage: a SQLite file, or a postgres:// URL (default $"+envDatabaseURL+", else ./"+defaultDB+")")
}

// open opens the store the flags name, creating a SQLite file (and its
// directory) on first use.
func (s *storageFlags) open(ctx context.Context) (memory.Store, string, error) {
	target := s.db
	if target == "" {
		target = strings.TrimSpace(os.Getenv(envDatabaseURL))
	}
	if target == "" {
		target = defaultDB
	}
	if isPostgresURL(target) {
		st, err := pgstore.Open(ctx, target)
		if err != nil {
			return nil, "", fmt.Errorf("open PostgreSQL: %w (check the URL in --db or $%s, and that the server is up)", err, envDatabaseURL)
		}
		return st, "PostgreSQL", nil
	}
	if dir := filepath.Dir(target); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", fmt.Errorf("open %s: %w (choose another path with --db)", target, err)
		}
	}
	st, err := sqlitestore.Open(target)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w (choose another path with --db)", target, err)
	}
	return st, target, nil
}

func isPostgresURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// agentFlags are the flags of every command that builds agents.
type agentFlags struct {
	configPath string
	sandbox    string
	unisolated bool
	fs         *flag.FlagSet
}

func (a *agentFlags) register(fs *flag.FlagSet) {
	a.fs = fs
	fs.StringVar(&a.configPath, "config", config.DefaultFile, "the agents' configuration; without the file, one agent \"assistant\" on the default model")
	fs.StringVar(&a.sandbox, "sandbox", config.DefaultSandboxRoot, "the directory that holds the agents' sandboxes")
	fs.BoolVar(&a.unisolated, "sandbox-unisolated", false, "run sandbox commands without bubblewrap when it cannot run here (they then see the whole machine)")
}

// load reads the configuration: the named file, or keel.yaml when there is
// one, else the default.
func (a *agentFlags) load() (*config.File, error) {
	f, err := config.Load(a.configPath)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, os.ErrNotExist) && !isSet(a.fs, "config"):
		return config.Default(), nil
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w (give an existing file to --config, or leave it out to run the default agent)", err)
	default:
		return nil, err
	}
}

// build builds the agents of f, keeping only the one named only when it
// is not "".
func (a *agentFlags) build(f *config.File, store memory.Store, logger *slog.Logger) (*config.Built, error) {
	def, noModel := defaultModel()
	return f.Build(config.BuildOptions{
		ResolveModel:    resolveModel,
		DefaultModel:    def,
		NoModel:         noModel,
		Memory:          store,
		SandboxRoot:     a.sandbox,
		AllowUnisolated: a.unisolated,
		Logger:          logger,
	})
}

// newLogger logs to w as text, at level.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// warn prints each warning to w so that it cannot be missed.
func warn(w io.Writer, cmd string, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "keel %s: WARNING: %s\n", cmd, s)
	}
}
