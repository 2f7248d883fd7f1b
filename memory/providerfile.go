package memory

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory/internal/stored"
)

// ProviderFiles is implemented by stores that keep the references of
// files uploaded to a provider's own file store ([keel.FileStore]), so
// that a file sent by reference once is named by the same reference on
// every later turn, by every server sharing the store's database, until
// the provider lets it expire. The three stores of this module implement
// it.
//
// An entry is found by the reference's scope ([keel.FileStore].FileScope:
// the provider, its base URL, a hash of the key) and the file's SHA-256:
// the same bytes sent in two threads, or twice in one, are uploaded once.
// Entries are shared that way, so deleting a thread leaves them, as it
// leaves the provider's copy; an entry goes when it is forgotten or
// replaced.
//
// A lookup returns an entry whatever its expiry: that the file went by
// reference under a scope before is itself worth knowing (it was too
// large to go inline), and the caller uploads it again and saves the new
// reference over the old one. The store keeps no clock.
type ProviderFiles interface {
	// ProviderFile returns the entry of the file whose digest is sha256
	// under scope, expired or not, and whether there is one.
	ProviderFile(ctx context.Context, scope, sha256 string) (keel.ProviderFile, bool, error)
	// SaveProviderFile stores f as the entry of the file whose digest is
	// sha256 under scope, replacing any. Bad input is an error wrapping
	// [ErrInvalid], and nothing is stored (see [CheckProviderFile]).
	SaveProviderFile(ctx context.Context, scope, sha256 string, f keel.ProviderFile) error
	// ForgetProviderFile removes that entry, and reports whether there
	// was one: the provider no longer knows the reference.
	ForgetProviderFile(ctx context.Context, scope, sha256 string) (bool, error)
}

// The bounds of a [ProviderFiles] entry.
const (
	// MaxFileScope bounds a scope, in bytes.
	MaxFileScope = 512
	// MaxFileRef bounds a reference, in bytes: Gemini's file URIs are
	// about 70.
	MaxFileRef = 2048
)

// CheckProviderFile returns f as a store keeps it (its media type
// normalized, its expiry in UTC to the millisecond), or an error wrapping
// [ErrInvalid] for a scope that is empty, longer than [MaxFileScope] bytes
// or not UTF-8 without NUL, a digest that is not 64 lower-case hex
// digits, a reference that is empty, longer than [MaxFileRef] bytes or
// holds a control character, a media type longer than 256 bytes, or no
// expiry. The stores of this module call it; a store of another package
// applies the same rules with it.
func CheckProviderFile(scope, sha256 string, f keel.ProviderFile) (keel.ProviderFile, error) {
	if err := CheckProviderFileKey(scope, sha256); err != nil {
		return keel.ProviderFile{}, err
	}
	f.MediaType = keel.NormalizeMediaType(f.MediaType)
	switch {
	case f.Ref == "" || len(f.Ref) > MaxFileRef || !utf8.ValidString(f.Ref) || strings.ContainsFunc(f.Ref, isControl):
		return keel.ProviderFile{}, fmt.Errorf("%w: provider file reference must be 1 to %d bytes of UTF-8 without control characters", ErrInvalid, MaxFileRef)
	case len(f.MediaType) > maxRefusalName || !utf8.ValidString(f.MediaType) || strings.ContainsFunc(f.MediaType, isControl):
		return keel.ProviderFile{}, fmt.Errorf("%w: provider file media type must be at most %d bytes of UTF-8", ErrInvalid, maxRefusalName)
	case f.ExpiresAt.IsZero() || f.ExpiresAt.Unix() <= 0:
		return keel.ProviderFile{}, fmt.Errorf("%w: provider file %s has no expiry", ErrInvalid, stored.Truncate(f.Ref))
	}
	f.ExpiresAt = stored.Time(f.ExpiresAt)
	return f, nil
}

// CheckProviderFileKey returns an error wrapping [ErrInvalid] for a scope
// or digest [CheckProviderFile] would refuse, for a lookup or a forget.
func CheckProviderFileKey(scope, sha256 string) error {
	if scope == "" || len(scope) > MaxFileScope || !utf8.ValidString(scope) || strings.IndexByte(scope, 0) >= 0 {
		return fmt.Errorf("%w: provider file scope must be 1 to %d bytes of UTF-8 without NUL", ErrInvalid, MaxFileScope)
	}
	if !isSHA256(sha256) {
		return fmt.Errorf("%w: provider file digest %q is not 64 lower-case hex digits", ErrInvalid, stored.Truncate(sha256))
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
