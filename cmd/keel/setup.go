package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/pgstore"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/provider"
)

// Defaults of the flags that every command touching storage or the
// sandbox takes.
const (
	defaultDB       = "keel.db"
	defaultResource = "default"
	envDatabaseURL  = "KEEL_DATABASE_URL"
	// envSandboxPrefix starts the names of docker sandboxes' containers
	// and volumes: keel installations that share an engine but not their
	// sandboxes set different ones.
	envSandboxPrefix = "KEEL_SANDBOX_PREFIX"
)

// storageFlags are the flags of every command that opens the store.
type storageFlags struct {
	db string
}

func (s *storageFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.db, "db", "", "storage: a SQLite file, or a postgres:// URL (default $"+envDatabaseURL+", else ./"+defaultDB+")")
}

// target is the storage the flags name: --db, else $KEEL_DATABASE_URL,
// else ./keel.db.
func (s *storageFlags) target() string {
	return cmp.Or(s.db, strings.TrimSpace(os.Getenv(envDatabaseURL)), defaultDB)
}

// open opens the store the flags name. keel run and keel serve create a
// SQLite file (and its directory) on first use; the commands that only
// read or delete (create false) open an existing one only, so that a
// mistyped path fails instead of leaving an empty database behind.
func (s *storageFlags) open(ctx context.Context, create bool) (memory.Store, string, error) {
	target := s.target()
	if isPostgresURL(target) {
		st, err := pgstore.Open(ctx, target)
		if err != nil {
			return nil, "", fmt.Errorf("open PostgreSQL: %w (check the URL in --db or $%s, and that the server is up)", err, envDatabaseURL)
		}
		return st, "PostgreSQL", nil
	}
	if !create {
		if _, err := os.Stat(target); err != nil {
			return nil, "", fmt.Errorf("no database at %s: %w (keel run and keel serve make it; name another with --db or $%s)",
				target, errors.Unwrap(err), envDatabaseURL)
		}
	} else if dir := filepath.Dir(target); dir != "." {
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
	a.registerPaths(fs)
	fs.BoolVar(&a.unisolated, "sandbox-unisolated", false, "run sandbox commands without bubblewrap when it cannot run here (they then see the whole machine)")
}

// registerPaths registers the flags that say where the configuration and
// the sandboxes are.
func (a *agentFlags) registerPaths(fs *flag.FlagSet) {
	a.fs = fs
	fs.StringVar(&a.configPath, "config", config.DefaultFile, "the agents' configuration; without the file, one agent \"assistant\" on the default model")
	fs.StringVar(&a.sandbox, "sandbox", config.DefaultSandboxRoot, "the directory that holds the agents' sandboxes")
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

// build builds the agents of f: all of them, or only the one named by
// only when it is not "", and starts the MCP servers they name (ctx
// bounds their start; the caller closes the result to stop them). cmd
// names the command, for the error of agents without a model.
func (a *agentFlags) build(ctx context.Context, f *config.File, store memory.Store, logger *slog.Logger, cmd, only string) (*config.Built, error) {
	def, noModel := defaultModel(cmd)
	built, err := f.BuildContext(ctx, config.BuildOptions{
		DockerPrefix:    os.Getenv(envSandboxPrefix),
		ResolveModel:    resolveModel,
		DefaultModel:    def,
		NoModel:         noModel,
		Memory:          store,
		SandboxRoot:     a.sandbox,
		AllowUnisolated: a.unisolated,
		Logger:          logger,
		Agent:           only,
	})
	if err == nil && usesDefaultModel(f, only) {
		if note := defaultModelChoice(def); note != "" {
			built.Warnings = append(built.Warnings, note)
		}
	}
	var ce *config.Error
	if err != nil && !errors.As(err, &ce) && strings.TrimSpace(os.Getenv(provider.EnvModel)) != "" {
		// Not a line of the file: the default model, from $KEEL_MODEL.
		return nil, fmt.Errorf("%w (check $%s)", err, provider.EnvModel)
	}
	return built, err
}

// usesDefaultModel reports whether an agent built (all, or only the one
// named) names no model of its own.
func usesDefaultModel(f *config.File, only string) bool {
	return slices.ContainsFunc(f.Agents, func(a config.Agent) bool {
		return (only == "" || a.ID == only) && len(a.Model) == 0
	})
}

// sandboxWhere says where the agents' sandboxes are: under the sandbox
// root, in Docker containers, or both.
func sandboxWhere(f *config.File, root string) string {
	local, docker := false, false
	for _, a := range f.Agents {
		switch {
		case a.Sandbox.None:
		case a.Sandbox.Engine == config.EngineDocker:
			docker = true
		default:
			local = true
		}
	}
	switch {
	case docker && local:
		return "sandboxes under " + root + " and in Docker containers"
	case docker:
		return "sandboxes in Docker containers"
	}
	return "sandboxes under " + root
}

// usesDocker reports whether an agent of f keeps its sandboxes in Docker.
func usesDocker(f *config.File) bool {
	return slices.ContainsFunc(f.Agents, func(a config.Agent) bool {
		return !a.Sandbox.None && a.Sandbox.Engine == config.EngineDocker
	})
}

// newLogger logs to w as text, at level.
//
// The standard logger goes to it too, each line a record at warning
// level: SDKs write there (genai's warnings and stream read errors, by
// log.Printf), and a line of another format beside the records would
// escape every filter and collector set up for them.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	l := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
	log.SetFlags(0)
	log.SetPrefix("")
	log.SetOutput(slog.NewLogLogger(l.Handler(), slog.LevelWarn).Writer())
	return l
}

// printBuilt prints, once each, what the operator must know (warnings,
// loudly) and should know (how sandbox commands run and are limited).
func printBuilt(w io.Writer, cmd string, built *config.Built) {
	for _, s := range built.Warnings {
		fmt.Fprintf(w, "keel %s: WARNING: %s\n", cmd, s)
	}
	for _, s := range built.Info {
		fmt.Fprintf(w, "keel %s: %s\n", cmd, s)
	}
}
