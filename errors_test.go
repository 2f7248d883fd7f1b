package keel_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/keel-go/keel"
)

// TestRefusalTextIgnoresMediaType checks that the field a refusal carries
// leaves its text as the reference framework writes it.
func TestRefusalTextIgnoresMediaType(t *testing.T) {
	err := &keel.UnsupportedFunctionalityError{Functionality: "media type: text/csv", MediaType: "text/csv; charset=utf-8"}
	if got, want := err.Error(), "'media type: text/csv' functionality not supported."; got != want {
		t.Errorf("Got(Error()) = %q; want %q", got, want)
	}
}

func TestIdleTimeoutIsTheCause(t *testing.T) {
	err := fmt.Errorf("call: %w", &keel.APICallError{
		Provider: "google", Retryable: true,
		Cause: fmt.Errorf("%w: nothing received from the provider for 1m0s", keel.ErrIdleTimeout),
	})
	if !errors.Is(err, keel.ErrIdleTimeout) {
		t.Errorf("Got(errors.Is(%v, ErrIdleTimeout)) = false; want true", err)
	}
	if got, want := err.Error(), "call: google: API call failed: idle timeout: nothing received from the provider for 1m0s"; got != want {
		t.Errorf("Got(Error()) = %q; want %q", got, want)
	}
}
