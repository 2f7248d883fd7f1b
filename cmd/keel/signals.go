package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// signalCause is the cause of the context that SIGINT or SIGTERM
// cancels, so that a command can tell an interruption from its own
// failures and exit as shells expect.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return "interrupted by " + c.sig.String() }

// exitCode is the status of a process ended by sig: 128 and the signal's
// number (130 for SIGINT), as shells report it.
func (c signalCause) exitCode() int {
	if s, ok := c.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// interrupted returns the signal that cancelled ctx, if one did.
func interrupted(ctx context.Context) (signalCause, bool) {
	return errors.AsType[signalCause](context.Cause(ctx))
}

// withSignals returns a context that the first SIGINT or SIGTERM cancels,
// letting the command stop cleanly (keel serve lets running requests
// finish); a second one exits at once, with the signal's status, for
// whoever does not want to wait. stop undoes it.
func withSignals(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			cancel(signalCause{sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			c := signalCause{sig}
			fmt.Fprintf(stderr, "keel: %s again: exiting now\n", sig)
			os.Exit(c.exitCode())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
