package config

import (
	"context"
	"iter"
	"strings"

	"github.com/keel-go/keel"
)

// UnavailableModel stands in for a model keel cannot use, such as one
// whose API key is not set: every call fails with Err, which says what to
// set. It lets keel serve start and answer, so that the error reaches the
// person calling it instead of a log they may not read. It is safe for
// concurrent use.
//
// The errors its calls return, and [UnavailableModel.Unavailable]'s, wrap
// Err and have a method ModelUnavailable() bool that reports true, so that
// a caller that does not import config can tell them with errors.As on an
// interface of that method: the HTTP server answers them 503, not 500.
type UnavailableModel struct {
	// Model is the model string that could not be used; "" when none was
	// configured.
	Model string
	// Err is what every call returns.
	Err error
}

// Provider returns the provider of the model string, or "none".
func (m *UnavailableModel) Provider() string {
	if p, _, ok := strings.Cut(m.Model, "/"); ok && p != "" {
		return p
	}
	return "none"
}

// Name returns the model of the model string, or "unconfigured".
func (m *UnavailableModel) Name() string {
	if _, name, ok := strings.Cut(m.Model, "/"); ok && name != "" {
		return name
	}
	return "unconfigured"
}

// Unavailable returns the error every call returns, so that a caller can
// refuse a turn before it starts (the HTTP server answers 503 without
// storing anything).
func (m *UnavailableModel) Unavailable() error { return unavailableError{m.Err} }

// Generate returns m.Err, marked as in [UnavailableModel.Unavailable].
func (m *UnavailableModel) Generate(ctx context.Context, _ *keel.Request) (*keel.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, m.Unavailable()
}

// Stream yields m.Err, marked as in [UnavailableModel.Unavailable].
func (m *UnavailableModel) Stream(ctx context.Context, _ *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		yield(keel.StreamEvent{}, m.Unavailable())
	}
}

// unavailableError is the error of an [UnavailableModel]: its Err, with
// the method that tells it from other failures.
type unavailableError struct{ err error }

func (e unavailableError) Error() string {
	if e.err == nil {
		return "config: model unavailable"
	}
	return e.err.Error()
}

func (e unavailableError) Unwrap() error { return e.err }

// ModelUnavailable reports true: no call of this model can succeed.
func (e unavailableError) ModelUnavailable() bool { return true }

var _ keel.Model = (*UnavailableModel)(nil)
