package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/pprof"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/server"
)

// keelServer is a keel server set up as keel serve sets it up by default:
// one agent with the Gemini adapter and SQLite memory (or, to split the
// server's cost from the store's, in-memory storage).
type keelServer struct {
	url   string
	close func()
}

func startKeel(ctx context.Context, modelURL, dbPath, kind string, logs io.Writer, spec telemetrySpec) (*keelServer, error) {
	var store memory.Store = memory.NewInMemory()
	if kind == "sqlite" {
		s, err := sqlitestore.Open(dbPath)
		if err != nil {
			return nil, err
		}
		store = s
	}
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "bench", BaseURL: modelURL})
	if err != nil {
		store.Close()
		return nil, err
	}
	tel, stopTelemetry, err := newTelemetry(ctx, spec)
	if err != nil {
		store.Close()
		return nil, err
	}
	mem := store
	var cfg server.Config
	if tel != nil {
		mem = tel.Store(store)
		cfg.Observer, cfg.Metrics = tel, tel.Handler()
	}
	logger := slog.New(slog.DiscardHandler)
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	a, err := agent.New(agent.Config{ID: "assistant", Instructions: "You are a helpful assistant.", Model: model, Memory: mem, Logger: logger})
	if err != nil {
		store.Close()
		return nil, err
	}
	cfg.Agents, cfg.Memory, cfg.Logger = []*agent.Agent{a}, mem, logger
	srv, err := server.New(cfg)
	if err != nil {
		store.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		store.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ctx, ln); err != nil {
			fmt.Fprintln(os.Stderr, "keelbench:", err)
		}
	}()
	return &keelServer{url: "http://" + ln.Addr().String(), close: func() {
		cancel()
		<-done
		stopTelemetry()
		store.Close()
	}}, nil
}

// serveChild is the child process: it serves keel, prints its URL on
// stdout, and runs until stdin closes (the parent went away or is done).
func serveChild(ctx context.Context, modelURL, dbPath, kind string, logs bool, cpuProfile string, spec telemetrySpec, stdout io.Writer) error {
	var w io.Writer
	if logs {
		w = os.Stderr
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ks, err := startKeel(ctx, modelURL, dbPath, kind, w, spec)
	if err != nil {
		return err
	}
	defer ks.close()
	fmt.Fprintln(stdout, ks.url)
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}
