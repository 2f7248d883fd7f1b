package processor

import (
	"cmp"
	"time"

	"github.com/keel-go/keel"
)

// Recovery tells what a processor did to keep a run going, so that callers
// and clients can show it ("leads.xlsx was uploaded to the sandbox"), and
// why. Its JSON form is what the server and the CLI send; fields are only
// ever added to it, and Action, Outcome and Kind may take values beyond
// those listed here, so readers should pass over values they do not know.
type Recovery struct {
	// Processor is the processor's ID.
	Processor string `json:"processor"`
	// Action is what it did. For the file processors it is the Outcome
	// that every file of Files shares: [OutcomeUploaded],
	// [OutcomeNotUploaded], [OutcomePlaceholder] or [OutcomeConverted]; a
	// rewrite that handled files in several ways, or for several causes,
	// reports one Recovery per outcome and cause.
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
	// OutcomeConverted: a converter turned the file into text, and the
	// model got that text, labelled with the file's name and what it
	// holds (see [Conversion]). With a sandbox, the text follows the
	// upload note, and Path or Reason are set as for [OutcomeUploaded] or
	// [OutcomeNotUploaded].
	OutcomeConverted = "converted"
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
	// [OutcomeNotUploaded], [OutcomePlaceholder] or [OutcomeConverted].
	Outcome string `json:"outcome"`
	// Path is where the file is in the sandbox, when it was uploaded.
	Path string `json:"path,omitempty"`
	// Reason is the sentence the "[File not uploaded]" note gave the model,
	// such as `File "big.zip" is 11534336 bytes, over the 10485760 byte
	// limit.`
	Reason string `json:"reason,omitempty"`
	// Conversion describes the text the model got, when Outcome is
	// [OutcomeConverted]; nil otherwise.
	Conversion *Conversion `json:"conversion,omitempty"`
	// Ref is the reference the model got the file by, in its provider's
	// own file store, when Outcome is [OutcomeProviderFile].
	Ref string `json:"ref,omitempty"`
}

// Conversion describes the text a converter made of a file.
type Conversion struct {
	// Kind is the converter's kind, such as "xlsx" or "docx".
	Kind string `json:"kind"`
	// As names the text's form: "CSV", "Markdown", "text".
	As string `json:"as"`
	// Description says what the file holds, as the text's label shows it,
	// such as `sheet "Leads", 1,204 rows × 9 columns`.
	Description string `json:"description,omitempty"`
	// Chars is the number of characters (runes) of the file's text the
	// model got, its label and notes not counted.
	Chars int `json:"chars"`
	// OmittedChars is how many characters the cap left out, and
	// OmittedUnits how many of Unit ("rows", "paragraphs", "lines"); all
	// zero when the text is whole.
	OmittedChars int    `json:"omittedChars,omitempty"`
	OmittedUnits int    `json:"omittedUnits,omitempty"`
	Unit         string `json:"unit,omitempty"`
	// OmittedAtLeast says that OmittedChars and OmittedUnits are lower
	// bounds: the converter stopped reading a file far past the cap.
	OmittedAtLeast bool `json:"omittedAtLeast,omitempty"`
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
	// CauseRememberedRefusal: no call of this run failed; the model
	// refused files of MediaType before, and the refusal, learned at
	// LearnedAt and remembered until ExpiresAt, was still remembered, so
	// the file was handled before the call. Provider and Model name the
	// model; Status and Message are the evidence the refusal was learned
	// from (Status 0 for a refusal by the SDK before sending).
	CauseRememberedRefusal = "remembered-refusal"
)

// RecoveryCause is the failure a processor answered.
type RecoveryCause struct {
	// Kind is [CauseAPIError], [CauseUnsupportedFunctionality] or
	// [CauseRememberedRefusal].
	Kind string `json:"kind"`
	// Provider names the provider, for an API error or a remembered
	// refusal.
	Provider string `json:"provider,omitempty"`
	// Model names the model, for a remembered refusal.
	Model string `json:"model,omitempty"`
	// Status is the HTTP status of an API error; 0 when no answer came.
	Status int `json:"status,omitempty"`
	// Code is the provider's error code, when it gave one.
	Code string `json:"code,omitempty"`
	// Message is the provider's message, or the SDK's refusal.
	Message string `json:"message,omitempty"`
	// MediaType is the media type refused by name, normalised: by an SDK,
	// by the provider's answer ([keel.APICallError].MediaType), or
	// remembered.
	MediaType string `json:"mediaType,omitempty"`
	// LearnedAt and ExpiresAt, for a remembered refusal, are when it was
	// learned and when it stops counting.
	LearnedAt time.Time `json:"learnedAt,omitzero"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// apiErrorCause describes a provider's error answer.
func apiErrorCause(e *keel.APICallError) *RecoveryCause {
	return &RecoveryCause{Kind: CauseAPIError, Provider: e.Provider, Status: e.StatusCode, Code: e.Code, Message: cmp.Or(e.Message, e.Error()),
		MediaType: keel.NormalizeMediaType(e.MediaType)}
}

// refusalCause describes an SDK's refusal of mediaType ("" when it named
// none).
func refusalCause(e *keel.UnsupportedFunctionalityError, mediaType string) *RecoveryCause {
	return &RecoveryCause{Kind: CauseUnsupportedFunctionality, Message: e.Error(), MediaType: mediaType}
}
