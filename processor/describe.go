package processor

import (
	"cmp"
	"strconv"
	"strings"
	"time"

	"github.com/keel-go/keel/internal/cleantext"
)

// This file turns a [Recovery] into words, once, for everything that
// shows one to a person: keel's command line, the server's log, the
// console (through the server, which sends the words with each recovery)
// and the telemetry's labels. A new outcome or cause is worded here, and
// every reader says it the same way.

// Description is a [Recovery] in words.
type Description struct {
	// Processor is the processor's ID and By its name as a person reads
	// it ("Unsupported File Handler"), the ID when it has no other.
	Processor string
	By        string
	// Why says why the processor acted: its cause, such as "google
	// answered 400 INVALID_ARGUMENT: Unsupported MIME type", or "by its
	// own rule" when it acted on no error.
	Why string
	// Files say what became of each file, in the Recovery's order; a
	// recovery about no file has one, of Name "", whose Got is the
	// Recovery's Action.
	Files []FileDescription
}

// FileDescription says what the model got in the place of one file.
type FileDescription struct {
	// Name is the file's name, on one line and at most 80 characters.
	Name string
	// Got is what the model got instead, such as "uploaded to the sandbox
	// at /home/user/uploads/t1/ab12.xlsx" or `converted to text (CSV,
	// sheet "Leads", 1,204 rows × 9 columns, 61,234 characters)`.
	Got string
}

// CauseNone is [Recovery.CauseKind] for a processor that acted on its own
// rule, not on an error.
const CauseNone = "none"

// CauseKind is the kind of r's cause, [CauseNone] when there is none: a
// label for logs, metrics and traces, never "".
func (r Recovery) CauseKind() string {
	if r.Cause == nil {
		return CauseNone
	}
	return r.Cause.Kind
}

// The lengths that one line of a description keeps of words from outside:
// a file's name, a converter's description, a provider's message.
const (
	maxNameWords    = 80
	maxMessageWords = 160
)

// processorNames are the names of the processors a person reads about.
var processorNames = map[string]string{
	UnsupportedFileHandlerID: "Unsupported File Handler",
	FileUploadID:             "File Upload",
}

// Describe says what r did, with each file, and why.
func (r Recovery) Describe() Description {
	d := Description{Processor: r.Processor, By: cmp.Or(processorNames[r.Processor], r.Processor), Why: r.Cause.why()}
	for _, f := range r.Files {
		d.Files = append(d.Files, FileDescription{Name: cleantext.Short(f.Name, maxNameWords), Got: f.got()})
	}
	if len(r.Files) == 0 {
		d.Files = []FileDescription{{Got: cleantext.Short(r.Action, maxNameWords)}}
	}
	return d
}

// Lines are d as sentences, one per file, as keel's command line prints
// them: `leads.xlsx uploaded to the sandbox at /home/user/uploads/t1/ab12.xlsx
// (unsupported-file-handler; google answered 400: Unsupported MIME type)`.
func (d Description) Lines() []string {
	lines := make([]string, len(d.Files))
	for i, f := range d.Files {
		lines[i] = strings.TrimLeft(f.Name+" "+f.Got, " ") + " (" + d.Processor + "; " + d.Why + ")"
	}
	return lines
}

// got says what the model got in the file's place.
func (f RecoveredFile) got() string {
	switch f.Outcome {
	case OutcomeUploaded:
		return "uploaded to the sandbox at " + f.Path
	case OutcomeNotUploaded:
		return "not uploaded: " + cmp.Or(f.Reason, "no reason given")
	case OutcomePlaceholder:
		return "replaced by a placeholder"
	case OutcomeProviderFile:
		return "sent by reference, from the provider's file store (" + f.Ref + ")"
	case OutcomeConverted:
		s := f.Conversion.words()
		switch {
		case f.Path != "":
			s += " and uploaded to the sandbox at " + f.Path
		case f.Reason != "":
			s += "; not uploaded: " + f.Reason
		}
		return s
	}
	s := cmp.Or(cleantext.Short(f.Outcome, maxNameWords), "handled")
	if f.Path != "" {
		s += ", in the sandbox at " + f.Path
	}
	if f.Reason != "" {
		s += ": " + f.Reason
	}
	return s
}

// words says what a converter made of a file: `converted to text (CSV,
// sheet "Leads", 3 rows × 2 columns, 42 characters)`, "converted to JPEG
// (HEIC 4032 × 3024 → JPEG 2000 × 1500)", "described in words (Image: PNG,
// 640 × 480 pixels, 212 characters)".
func (c *Conversion) words() string {
	if c == nil {
		return "converted to text"
	}
	var facts []string
	s := "converted to text"
	switch {
	case c.Kind == "image" && c.As == "description":
		s = "described in words"
	case c.Kind == "image":
		s = "converted to " + cmp.Or(c.As, "an image the model reads")
	default:
		facts = append(facts, cmp.Or(c.As, "text"))
	}
	if c.Description != "" {
		facts = append(facts, cleantext.Short(c.Description, maxNameWords))
	}
	if c.Chars > 0 || c.Kind != "image" {
		facts = append(facts, thousands(c.Chars)+" characters")
	}
	if c.OmittedChars > 0 {
		left := thousands(c.OmittedChars) + " left out"
		if c.OmittedUnits > 0 && c.Unit != "" {
			left = thousands(c.OmittedChars) + " (" + thousands(c.OmittedUnits) + " " + c.Unit + ") left out"
		}
		if c.OmittedAtLeast {
			left = "at least " + left
		}
		facts = append(facts, left)
	}
	if len(facts) == 0 {
		return s
	}
	return s + " (" + strings.Join(facts, ", ") + ")"
}

// why says why a processor acted, its cause c (nil for its own rule).
func (c *RecoveryCause) why() string {
	if c == nil {
		return "by its own rule"
	}
	model := cmp.Or(strings.Trim(c.Provider+"/"+c.Model, "/"), "the model")
	var s string
	switch c.Kind {
	case CauseAPIError:
		s = cmp.Or(c.Provider, "the provider") + " failed without an answer"
		if c.Status != 0 {
			s = strings.TrimRight(cmp.Or(c.Provider, "the provider")+" answered "+strconv.Itoa(c.Status)+" "+cleantext.Short(c.Code, maxNameWords), " ")
		}
	case CauseUnsupportedFunctionality:
		s = "the provider's SDK refused it before sending"
	case CauseInlineLimit:
		s = "too large to go inline to " + model
	case CauseRememberedRefusal:
		s = model + " refused " + cmp.Or(c.MediaType, "this type") + " before, so keel did not send it again"
		var when []string
		if !c.LearnedAt.IsZero() {
			when = append(when, "learned "+c.LearnedAt.UTC().Format(time.RFC3339))
		}
		if !c.ExpiresAt.IsZero() {
			when = append(when, "remembered until "+c.ExpiresAt.UTC().Format(time.RFC3339))
		}
		if len(when) > 0 {
			s += " (" + strings.Join(when, ", ") + ")"
		}
		// The message is the evidence the refusal was learned from.
		if evidence := strings.TrimSpace(statusText(c.Status) + " " + cleantext.Short(c.Message, maxMessageWords)); evidence != "" {
			s += "; evidence: " + evidence
		}
		return s
	default:
		s = strings.TrimSpace(cleantext.Short(c.Kind, maxNameWords) + " " + statusText(c.Status))
	}
	if c.Message != "" {
		s += ": " + cleantext.Short(c.Message, maxMessageWords)
	}
	return s
}

// statusText is an HTTP status, "" for none.
func statusText(status int) string {
	if status == 0 {
		return ""
	}
	return strconv.Itoa(status)
}

// thousands writes n with its thousands separated by commas: 61,234.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
