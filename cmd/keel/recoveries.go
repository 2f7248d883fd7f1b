package main

import (
	"fmt"
	"io"

	"github.com/keel-go/keel/processor"
)

// printRecoveries writes what keel did with each file, one line per file
// and why, each line after prefix: "  keel: " in a thread's transcript,
// "keel run: " as a run goes.
func printRecoveries(w io.Writer, prefix string, recs ...processor.Recovery) {
	for _, rec := range recs {
		for _, line := range rec.Describe().Lines() {
			fmt.Fprintln(w, prefix+line)
		}
	}
}
