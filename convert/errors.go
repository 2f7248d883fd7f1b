package convert

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrUnsupported is returned (wrapped) by [Registry.Convert] when no
// converter knows the file: by its media type, its extension or its
// content. The caller keeps whatever it did before converters existed.
var ErrUnsupported = errors.New("convert: no converter knows this file")

// ErrLimit is the sentinel every [*LimitError] matches with [errors.Is].
var ErrLimit = errors.New("convert: file exceeds a conversion limit")

// FormatError reports a file that is not what its converter reads: a
// truncated or corrupt archive, malformed XML, content of another type
// under the converter's name (a PNG named .xlsx), or a converter that
// panicked on it.
type FormatError struct {
	// Kind is the converter's kind, such as "xlsx".
	Kind string
	// Reason says what is wrong, in lower case.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *FormatError) Error() string {
	s := "convert: " + e.Kind + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// LimitError reports a file that would need more than a [Limits] field
// allows: more unpacked bytes, archive entries, sheets, XML depth or XML
// tokens. It matches [ErrLimit] with [errors.Is].
type LimitError struct {
	// Kind is the converter's kind, such as "zip".
	Kind string
	// Limit names the limit, such as "unpacked bytes" or "archive entries".
	Limit string
	// Max is the limit's value.
	Max int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("convert: %s: file exceeds the limit of %d %s; raise the limit in convert.Limits to read it", e.Kind, e.Max, e.Limit)
}

// Is reports whether target is [ErrLimit].
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

func formatErr(kind, reason string, err error) error {
	return &FormatError{Kind: kind, Reason: reason, Err: err}
}

func limitErr(kind, limit string, max int64) error {
	return &LimitError{Kind: kind, Limit: limit, Max: max}
}

// withKind gives a limit or format error raised by shared code (the zip
// reader, the XML scanner) the kind of the converter that called it. It
// returns a copy: shared code may return package-level errors.
func withKind(kind string, err error) error {
	switch e := err.(type) {
	case *LimitError:
		if e.Kind == "" {
			c := *e
			c.Kind = kind
			return &c
		}
	case *FormatError:
		if e.Kind == "" {
			c := *e
			c.Kind = kind
			return &c
		}
	}
	return err
}

// withPart names the part of the file (a sheet, a slide) a format error
// is about.
func withPart(part string, err error) error {
	if e, ok := err.(*FormatError); ok {
		c := *e
		c.Reason = strconv.Quote(part) + ": " + c.Reason
		return &c
	}
	return err
}

// ErrNeedsLibreOffice is matched by the [*FormatError] of a file that
// keel's converters do not read but LibreOffice does (a Word 95
// document, an Excel 5 workbook, an encrypted one): a [Registry] that
// holds [LibreOffice] converts it with that instead.
var ErrNeedsLibreOffice = errors.New("LibreOffice reads it: install the libreoffice package and enable convert.LibreOffice")

func needsLibreOffice(what string) error {
	return formatErr("", what+" is not read by keel's own converters", ErrNeedsLibreOffice)
}
