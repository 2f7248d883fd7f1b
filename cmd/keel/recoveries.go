package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

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
	case processor.OutcomeProviderFile:
		return "sent by reference, from the provider's file store (" + f.Ref + ")"
	case processor.OutcomeConverted:
		s := "converted to text"
		if c := f.Conversion; c != nil {
			s += " (" + c.As
			if c.Description != "" {
				s += ", " + oneLine(c.Description, 80)
			}
			s += ", " + strconv.Itoa(c.Chars) + " characters"
			if c.OmittedChars > 0 && c.OmittedAtLeast {
				s += ", at least " + strconv.Itoa(c.OmittedChars) + " left out"
			} else if c.OmittedChars > 0 {
				s += ", " + strconv.Itoa(c.OmittedChars) + " left out"
			}
			s += ")"
		}
		switch {
		case f.Path != "":
			s += " and uploaded to the sandbox at " + f.Path
		case f.Reason != "":
			s += "; not uploaded: " + f.Reason
		}
		return s
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
	case processor.CauseInlineLimit:
		b.WriteString("over " + strings.Trim(c.Provider+"/"+c.Model, "/") + "'s inline limit")
	case processor.CauseRememberedRefusal:
		b.WriteString(strings.Trim(c.Provider+"/"+c.Model, "/") + " refused " + c.MediaType + " before")
		if !c.ExpiresAt.IsZero() {
			b.WriteString(", remembered until " + c.ExpiresAt.UTC().Format(time.RFC3339))
		}
		if c.Status != 0 {
			b.WriteString("; evidence " + strconv.Itoa(c.Status))
		} else if c.Message != "" {
			b.WriteString("; evidence")
		}
	default:
		b.WriteString(c.Kind)
	}
	if c.Message != "" {
		b.WriteString(": " + oneLine(c.Message, 160))
	}
	return b.String()
}
