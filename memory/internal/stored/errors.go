package stored

import "errors"

// The errors stores wrap, so callers can tell them apart with errors.Is.
// Package memory exports them under the same names.
var (
	ErrNotFound = errors.New("memory: not found")
	ErrConflict = errors.New("memory: conflict")
	ErrInvalid  = errors.New("memory: invalid input")
	ErrCorrupt  = errors.New("memory: corrupt data")
)

// ErrFull is wrapped by a store's refusal to queue past a bound.
var ErrFull = errors.New("memory: full")
