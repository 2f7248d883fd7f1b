package processor

import "time"

// Refusal is a ledger's entry: files of MediaType refused by the model,
// learned at LearnedAt from the evidence in Status and Reason, counting
// until ExpiresAt.
type Refusal struct {
	Provider, Model, MediaType string
	LearnedAt, ExpiresAt       time.Time
	// Status is the HTTP status of the refused call, or 0 when the SDK
	// refused the file before sending anything.
	Status int
	// Reason is a short account of the refusal.
	Reason string
}

// RefusalKey names a ledger's entry, or with fields left empty a set of
// them.
type RefusalKey struct {
	Provider, Model, MediaType string
}

// MaxRefusalReason is the longest [Refusal].Reason kept, in bytes.
const MaxRefusalReason = 512

// Expired reports whether r no longer counts at now.
func (r Refusal) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }
