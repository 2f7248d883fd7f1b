package processor

import (
	"github.com/keel-go/keel"
)

// Recovery tells what a processor did to keep a run going, so that callers
// and clients can show it ("leads.xlsx was uploaded to the sandbox"), and
// why. Its JSON form is what the server and the CLI send; fields are only
// ever added to it, and Action, Outcome and Kind may take values beyond
// those listed here (keel's text converters and remembered refusals will
// add theirs), so readers should pass over values they do not know.
type Recovery struct {
	// Processor is the processor's ID.
	Processor string `json:"processor"`
	// Action is what it did. For the file processors it is the Outcome
	// that every file of Files shares: [OutcomeUploaded],
	// [OutcomeNotUploaded] or [OutcomePlaceholder]; a rewrite that handled
	// files in several ways reports one Recovery per outcome.
	Action string `json:"action"`
	// Files are the files concerned, if any.
	Files []RecoveredFile `json:"files,omitempty"`
	// Cause is why the processor acted, when it acted on an error: nil
	// for a [FileUpload], which acts on its filter.
	Cause *RecoveryCause `json:"cause,omitempty"`
}

// What the model got in the place of a file ([RecoveredFile] Outcome,
// [Recovery] Action).
const (
	// OutcomeUploaded: the file was put in the sandbox, and the model got
	// the "[File uploaded to the sandbox]" note with its Path.
	OutcomeUploaded = "uploaded"
	// OutcomeNotUploaded: the file could not be put in the sandbox (too
	// large, undecodable, or, for a file of the history that FileUpload
	// chose, no sandbox or a failed write), and the model got the
	// "[File not uploaded]" note with the Reason.
	OutcomeNotUploaded = "not-uploaded"
	// OutcomePlaceholder: the model got "[Attachment unavailable: NAME]",
	// because there was no sandbox, the file was given by URL or provider
	// reference (never downloaded), or the upload failed.
	OutcomePlaceholder = "placeholder"
)

// RecoveredFile is a file a [Recovery] concerns.
type RecoveredFile struct {
	// Name is the file's display name: its file name, else its media type
	// as sent, else "file", without control characters or escape
	// sequences and at most 200 characters.
	Name string `json:"name"`
	// MediaType is the normalised media type ("" when none was sent).
	MediaType string `json:"mediaType"`
	// Size is the decoded size in bytes, and SHA256 the lower-case hex
	// digest of the bytes. Both are zero (and left out of the JSON) when
	// the content is given by URL or reference, or cannot be decoded; an
	// empty inline file has its SHA256 and a Size of 0.
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Outcome is what the model got in the file's place: [OutcomeUploaded],
	// [OutcomeNotUploaded] or [OutcomePlaceholder].
	Outcome string `json:"outcome"`
	// Path is where the file is in the sandbox, when it was uploaded.
	Path string `json:"path,omitempty"`
	// Reason is the sentence the "[File not uploaded]" note gave the model,
	// such as `File "big.zip" is 11534336 bytes, over the 10485760 byte
	// limit.`
	Reason string `json:"reason,omitempty"`
}

// The kinds of a [RecoveryCause].
const (
	// CauseAPIError: the provider answered the call with an error
	// ([keel.APICallError]); Provider, Status, Code and Message are its.
	CauseAPIError = "api-error"
	// CauseUnsupportedFunctionality: the provider's SDK refused the request
	// before sending it ([keel.UnsupportedFunctionalityError]); Message is
	// its text and MediaType the media type it refused, if it named one.
	CauseUnsupportedFunctionality = "unsupported-functionality"
)

// RecoveryCause is the failure a processor answered.
type RecoveryCause struct {
	// Kind is [CauseAPIError] or [CauseUnsupportedFunctionality].
	Kind string `json:"kind"`
	// Provider names the provider, for an API error.
	Provider string `json:"provider,omitempty"`
	// Status is the HTTP status of an API error; 0 when no answer came.
	Status int `json:"status,omitempty"`
	// Code is the provider's error code, when it gave one.
	Code string `json:"code,omitempty"`
	// Message is the provider's message, or the SDK's refusal.
	Message string `json:"message,omitempty"`
	// MediaType is the media type an SDK refused by name, lower-cased.
	MediaType string `json:"mediaType,omitempty"`
}

// apiErrorCause describes a provider's error answer.
func apiErrorCause(e *keel.APICallError) *RecoveryCause {
	msg := e.Message
	if msg == "" {
		msg = e.Error()
	}
	return &RecoveryCause{Kind: CauseAPIError, Provider: e.Provider, Status: e.StatusCode, Code: e.Code, Message: msg}
}

// refusalCause describes an SDK's refusal of mediaType ("" when it named
// none).
func refusalCause(e *keel.UnsupportedFunctionalityError, mediaType string) *RecoveryCause {
	return &RecoveryCause{Kind: CauseUnsupportedFunctionality, Message: e.Error(), MediaType: mediaType}
}

// reportFiles tells the run what a rewrite did with files it had not
// reported before: one [Recovery] per outcome, in the order outcomes
// first appear.
func reportFiles(run *Run, processor string, cause *RecoveryCause, files []RecoveredFile) {
	var order []string
	byOutcome := make(map[string][]RecoveredFile)
	for _, f := range files {
		if _, seen := byOutcome[f.Outcome]; !seen {
			order = append(order, f.Outcome)
		}
		byOutcome[f.Outcome] = append(byOutcome[f.Outcome], f)
	}
	for _, outcome := range order {
		run.Report(Recovery{Processor: processor, Action: outcome, Files: byOutcome[outcome], Cause: cause})
	}
}
