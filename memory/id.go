package memory

import "github.com/keel-go/keel/memory/internal/stored"

// MaxIDLength is the longest ID a store accepts.
const MaxIDLength = stored.MaxIDLength

// ValidID reports whether id is acceptable as a thread, message or resource
// ID: 1 to [MaxIDLength] bytes of ASCII letters, digits, '.', '_', ':' and
// '-'. The set is small on purpose: IDs end up in URLs, file paths and log
// lines, where anything else needs escaping.
func ValidID(id string) bool { return stored.ValidID(id) }

// CheckID returns an error wrapping [ErrInvalid] when id is not a
// [ValidID]; kind names the ID in the message ("thread", "resource", ...).
func CheckID(kind, id string) error { return stored.CheckID(kind, id) }

// NewID returns a random ID (a version 4 UUID), as stores give to threads
// and messages stored without one. It is safe for concurrent use.
func NewID() string { return stored.NewID() }
