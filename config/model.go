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

// Generate returns m.Err.
func (m *UnavailableModel) Generate(ctx context.Context, _ *keel.Request) (*keel.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, m.Err
}

// Stream yields m.Err.
func (m *UnavailableModel) Stream(ctx context.Context, _ *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		yield(keel.StreamEvent{}, m.Err)
	}
}

var _ keel.Model = (*UnavailableModel)(nil)
