package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory/internal/stored"
)

// RefusalLedger is implemented by stores that remember which file types
// each model refused, so that every server sharing the store's database
// stops sending a model a file it will refuse, and each learns it once.
// The three stores of this module implement it.
//
// A lookup is one indexed query (or a map read in memory), cheap enough
// that an in-process cache is the only thing a caller needs between a
// model call and the database; such a cache, and how long it may serve
// an entry removed from the database, are the caller's. The ledger keeps
// no clock: callers give the times entries are learned and expire, and
// the time a lookup is for.
type RefusalLedger interface {
	// RecordRefusal stores r, replacing the entry of its provider, model
	// and media type if there is one (the media type is normalized first,
	// see [Refusal.Normalize]). Bad input is an error wrapping
	// [ErrInvalid], and nothing is stored.
	RecordRefusal(ctx context.Context, r Refusal) error
	// Refusals returns the entries of the provider and model that have
	// not expired at now, ordered by media type; none is an empty slice.
	Refusals(ctx context.Context, provider, model string, now time.Time) ([]Refusal, error)
	// ListRefusals returns every entry, expired ones included (an expired
	// entry is kept until it is recorded again or forgotten, so that an
	// operator can see what was learned; [Refusal.Expired] tells them
	// apart), ordered by provider, model and media type.
	ListRefusals(ctx context.Context) ([]Refusal, error)
	// ForgetRefusals removes the entries key matches and says how many
	// it removed: one entry for a full key, every entry of a model when
	// MediaType is empty, of a provider when Model is empty too, and
	// every entry when the key is empty. A field given after an empty
	// one is an error wrapping [ErrInvalid].
	ForgetRefusals(ctx context.Context, key RefusalKey) (int, error)
}

// RefusalKey names an entry of a [RefusalLedger], or, with fields left
// empty, a set of them (see [RefusalLedger.ForgetRefusals]).
type RefusalKey struct {
	// Provider is the model's provider, as [keel.Model.Provider] names it.
	Provider string
	// Model is the model's name, as [keel.Model.Name] gives it.
	Model string
	// MediaType is the refused file type, normalized by
	// [keel.NormalizeMediaType] ("text/csv", never "Text/CSV; charset=x").
	MediaType string
}

// Refusal is what a model refused: files of one media type, learned at
// LearnedAt from the evidence in Status and Reason, remembered until
// ExpiresAt (models change, so no refusal is remembered for ever).
type Refusal struct {
	Provider, Model, MediaType string
	// LearnedAt is when the refusal was seen; ExpiresAt, after it, when
	// the entry stops counting. Both are kept in UTC to the millisecond.
	LearnedAt, ExpiresAt time.Time
	// Status is the HTTP status of the refused call, or 0 when the
	// provider's SDK refused the file before sending anything.
	Status int
	// Reason is a short account of the refusal (the provider's message,
	// or "refused by the SDK before sending"), at most
	// [MaxRefusalReason] bytes of UTF-8.
	Reason string
}

// MaxRefusalReason is the longest [Refusal.Reason] a ledger keeps.
const MaxRefusalReason = 512

// maxRefusalName bounds a provider, model or media type.
const maxRefusalName = 256

// Key returns the key of r's entry.
func (r Refusal) Key() RefusalKey {
	return RefusalKey{Provider: r.Provider, Model: r.Model, MediaType: r.MediaType}
}

// Expired reports whether r no longer counts at now: from ExpiresAt on.
func (r Refusal) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// Normalize returns r as a ledger keeps it: its media type normalized,
// its times in UTC to the millisecond. It is an error wrapping
// [ErrInvalid] for a key field that is empty, longer than 256 bytes or
// not UTF-8 (or holds a NUL), a zero LearnedAt, an ExpiresAt not after
// it, a status other than 0 or 100 to 599, or a reason longer than
// [MaxRefusalReason] or not UTF-8. The stores of this module call it; a
// store of another package applies the same rules with it.
func (r Refusal) Normalize() (Refusal, error) {
	key, err := r.Key().Normalize()
	if err != nil {
		return Refusal{}, err
	}
	if key.Provider == "" || key.Model == "" || key.MediaType == "" {
		return Refusal{}, fmt.Errorf("%w: refusal needs a provider, a model and a media type", ErrInvalid)
	}
	r.Provider, r.Model, r.MediaType = key.Provider, key.Model, key.MediaType
	r.LearnedAt, r.ExpiresAt = stored.Time(r.LearnedAt), stored.Time(r.ExpiresAt)
	switch {
	case r.LearnedAt.IsZero() || r.LearnedAt.Unix() <= 0:
		return Refusal{}, fmt.Errorf("%w: refusal of %s by %s has no time it was learned", ErrInvalid, r.MediaType, r.Model)
	case !r.ExpiresAt.After(r.LearnedAt):
		return Refusal{}, fmt.Errorf("%w: refusal of %s by %s expires at %v, not after it was learned (%v)", ErrInvalid, r.MediaType, r.Model, r.ExpiresAt, r.LearnedAt)
	case r.Status != 0 && (r.Status < 100 || r.Status > 599):
		return Refusal{}, fmt.Errorf("%w: refusal status %d; want 0 (refused before sending) or an HTTP status", ErrInvalid, r.Status)
	case len(r.Reason) > MaxRefusalReason || !utf8.ValidString(r.Reason) || strings.IndexByte(r.Reason, 0) >= 0:
		return Refusal{}, fmt.Errorf("%w: refusal reason must be at most %d bytes of UTF-8 without NUL", ErrInvalid, MaxRefusalReason)
	}
	return r, nil
}

// Normalize returns k with its media type normalized by
// [keel.NormalizeMediaType], or an error wrapping [ErrInvalid] for a
// field longer than 256 bytes, not UTF-8 or holding a NUL, or given after
// an empty one.
func (k RefusalKey) Normalize() (RefusalKey, error) {
	k.MediaType = keel.NormalizeMediaType(k.MediaType)
	fields := [...]string{k.Provider, k.Model, k.MediaType}
	for i, f := range fields {
		if len(f) > maxRefusalName || !utf8.ValidString(f) || strings.IndexByte(f, 0) >= 0 {
			return RefusalKey{}, fmt.Errorf("%w: refusal provider, model and media type must be at most %d bytes of UTF-8 without NUL", ErrInvalid, maxRefusalName)
		}
		if f != "" && i > 0 && fields[i-1] == "" {
			return RefusalKey{}, fmt.Errorf("%w: refusal key %q/%q/%q names a field after an empty one", ErrInvalid,
				stored.Truncate(k.Provider), stored.Truncate(k.Model), stored.Truncate(k.MediaType))
		}
	}
	return k, nil
}
