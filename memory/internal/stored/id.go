package stored

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// MaxIDLength is the longest ID a store accepts.
const MaxIDLength = 128

// ValidID reports whether id is acceptable as a thread, message or resource
// ID: 1 to [MaxIDLength] bytes of ASCII letters, digits, '.', '_', ':' and
// '-', but not "." or "..". The set is small on purpose: IDs end up in
// URLs, file paths and log lines, where anything else needs escaping, and
// "." and ".." name a directory and its parent there.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLength || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// IDError is the error of an ID that is not a [ValidID]. It wraps
// [ErrInvalid].
type IDError struct {
	// Kind names the ID: "thread", "resource", "message"...
	Kind string
	// ID is the ID as given, cut to 64 bytes.
	ID string
}

func (e *IDError) Error() string {
	return fmt.Sprintf("%v: %s id %q must be 1 to %d of [A-Za-z0-9._:-], not . or ..", ErrInvalid, e.Kind, e.ID, MaxIDLength)
}

// Unwrap returns [ErrInvalid].
func (e *IDError) Unwrap() error { return ErrInvalid }

// CheckID returns an *[IDError] when id is not a [ValidID]; kind names
// the ID in the message ("thread", "resource", ...).
func CheckID(kind, id string) error {
	if !ValidID(id) {
		return &IDError{Kind: kind, ID: Truncate(id)}
	}
	return nil
}

// NewID returns a random ID (a version 4 UUID), as stores give to threads
// and messages stored without one.
func NewID() string {
	var b [16]byte
	// crypto/rand.Read never returns an error since Go 1.24.
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// Truncate shortens s for an error message, so that a megabyte of bad input
// does not end up in a log line.
func Truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
