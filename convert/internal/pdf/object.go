package pdf

import (
	"fmt"
	"strconv"
)

// Object is a PDF object: nil (null), bool, int64, float64, Name,
// String, Array, Dict, Ref or *Stream.
type Object any

// Name is a PDF name, without its slash.
type Name string

// String is a PDF string's bytes, as stored (after decryption).
type String []byte

// Array is a PDF array.
type Array []Object

// Dict is a PDF dictionary.
type Dict map[Name]Object

// Ref is an indirect reference.
type Ref struct {
	Num, Gen int
}

func (r Ref) String() string { return strconv.Itoa(r.Num) + " " + strconv.Itoa(r.Gen) + " R" }

// Stream is a stream object: its dictionary and its raw (encoded) bytes,
// a slice of the file.
type Stream struct {
	Dict Dict
	Raw  []byte
	ref  Ref // for decryption
}

// num returns an integer or real as a float64.
func num(o Object) (float64, bool) {
	switch v := o.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

// LimitError reports a document that needs more than a limit allows.
type LimitError struct {
	// Limit names the limit: "unpacked bytes", "nesting depth",
	// "content tokens", "pages".
	Limit string
	Max   int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("pdf: exceeds the limit of %d %s", e.Max, e.Limit)
}

// FormatError reports a document that cannot be read.
type FormatError struct {
	Reason string
	Err    error
}

func (e *FormatError) Error() string {
	if e.Err != nil {
		return "pdf: " + e.Reason + ": " + e.Err.Error()
	}
	return "pdf: " + e.Reason
}

func (e *FormatError) Unwrap() error { return e.Err }

func errorf(format string, args ...any) error {
	return &FormatError{Reason: fmt.Sprintf(format, args...)}
}
