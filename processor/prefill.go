package processor

import (
	"context"
	"regexp"

	"github.com/keel-go/keel"
)

// PrefillErrorHandlerID is the ID of [PrefillErrorHandler].
const PrefillErrorHandlerID = "prefill-error-handler"

// prefillReminder is the text of the user message that turns a prompt
// ending with an assistant message into one ending with a user message,
// which models without prefill support accept.
const prefillReminder = "<system-reminder>continue</system-reminder>"

// PrefillReminderType is the type the prefill error handler's reminder
// message carries in its metadata: {"systemReminder": {"type":
// "anthropic-prefill-processor-retry"}}, as Mastra's client and its apps
// expect.
const PrefillReminderType = "anthropic-prefill-processor-retry"

var prefillPattern = regexp.MustCompile(`(?i)does not support assistant message prefill`)

// PrefillErrorHandler is the default error processor that answers a
// model's refusal of assistant message prefill ("This model does not
// support assistant message prefill"): it adds a user message
// "<system-reminder>continue</system-reminder>" to the run, marked with
// [keel.MetadataSystemReminder] of type [PrefillReminderType] so that
// clients can hide it, and asks for
// a retry without delay. It acts only on the run's first failure (retry
// count 0), so it adds at most one reminder per run.
//
// It has no options and no state; one value serves any number of
// concurrent runs.
type PrefillErrorHandler struct{}

// NewPrefillErrorHandler returns the prefill error handler.
func NewPrefillErrorHandler() *PrefillErrorHandler { return &PrefillErrorHandler{} }

// ID returns "prefill-error-handler".
func (*PrefillErrorHandler) ID() string { return PrefillErrorHandlerID }

// HandleAPIError asks for a retry, after adding the reminder message, when
// the error's message, or the response body of an [keel.APICallError] in
// its cause chain, says that the model does not support assistant message
// prefill.
func (h *PrefillErrorHandler) HandleAPIError(_ context.Context, e *APIErrorEvent) (Decision, error) {
	if e == nil || e.Run == nil || e.Err == nil || e.Run.RetryCount() != 0 {
		return Decision{}, nil
	}
	if !isPrefillRefusal(e.Err) {
		return Decision{}, nil
	}
	e.Run.AddMessage(keel.Message{
		Role:     keel.RoleUser,
		Parts:    []keel.Part{keel.TextPart{Text: prefillReminder}},
		Metadata: map[string]any{keel.MetadataSystemReminder: map[string]any{"type": PrefillReminderType}},
	})
	return Decision{Retry: true}, nil
}

func isPrefillRefusal(err error) bool {
	// The SDKs' error strings often leave the provider's message out
	// (openai-go says only "400 Bad Request"), so the raw body is read too.
	return walkCauses(err, retryErrorDepth, func(e error) bool {
		if prefillPattern.MatchString(e.Error()) {
			return true
		}
		if api, ok := e.(*keel.APICallError); ok {
			return prefillPattern.MatchString(api.Body) || prefillPattern.MatchString(api.Message)
		}
		return false
	})
}
