package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/keel-go/keel/processor"
)

// printRecoveries writes what keel did with each file of a turn, one line
// per file, and why.
func printRecoveries(w io.Writer, recs []processor.Recovery) {
	for _, rec := range recs {
		why := recoveryCause(rec.Cause)
		for _, f := range rec.Files {
			fmt.Fprintf(w, "  keel: %s %s (%s; %s)\n", oneLine(f.Name, 80), fileOutcome(f), rec.Processor, why)
		}
		if len(rec.Files) == 0 {
			fmt.Fprintf(w, "  keel: %s (%s; %s)\n", rec.Action, rec.Processor, why)
		}
	}
}

// fileOutcome says what the model got in the file's place.
func fileOutcome(f processor.RecoveredFile) string {
	switch f.Outcome {
	case processor.OutcomeUploaded:
		return "uploaded to the sandbox at " + f.Path
	case processor.OutcomeNotUploaded:
		return "not uploaded: " + f.Reason
	case processor.OutcomePlaceholder:
		return "replaced by a placeholder"
	default:
		s := f.Outcome
		if f.Path != "" {
			s += ", in the sandbox at " + f.Path
		}
		return s
	}
}

// recoveryCause says why the processor acted.
func recoveryCause(c *processor.RecoveryCause) string {
	if c == nil {
		return "by its own rule"
	}
	var b strings.Builder
	switch c.Kind {
	case processor.CauseAPIError:
		b.WriteString(c.Provider)
		if b.Len() == 0 {
			b.WriteString("the provider")
		}
		if c.Status != 0 {
			b.WriteString(" answered " + strconv.Itoa(c.Status))
		} else {
			b.WriteString(" failed")
		}
	case processor.CauseUnsupportedFunctionality:
		b.WriteString("the SDK refused it")
	default:
		b.WriteString(c.Kind)
	}
	if c.Message != "" {
		b.WriteString(": " + oneLine(c.Message, 160))
	}
	return b.String()
}
