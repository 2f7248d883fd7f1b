package main

import (
	"context"
	"os"
)

func main() {
	ctx, stop := withSignals(context.Background(), os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
