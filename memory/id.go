package memory

import "github.com/keel-go/keel/memory/internal/stored"

// MaxIDLength is the longest ID a store accepts.
const MaxIDLength = stored.MaxIDLength

// ValidID reports whether id is acceptable as a thread, message or resource
// ID: 1 to [MaxIDLength] bytes of ASCII letters, digits, '.', '_', ':' and
// '-', but not "." or "..". The set is small on purpose: IDs end up in
// URLs, file paths and log lines, where anything else needs escaping, and
// "." and ".." name a directory and its parent there.
func ValidID(id string) bool { return stored.ValidID(id) }

// IDError is the error of an ID that is not a [ValidID], such as ".."; it
// wraps [ErrInvalid].
type IDError = stored.IDError

// CheckID returns an *[IDError] when id is not a [ValidID]; kind names
// the ID in the message ("thread", "resource", ...).
func CheckID(kind, id string) error { return stored.CheckID(kind, id) }

// NewID returns a random ID (a version 4 UUID), as stores give to threads
// and messages stored without one. It is safe for concurrent use.
func NewID() string { return stored.NewID() }
