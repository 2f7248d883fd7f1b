package imageconv

import (
	"errors"
	"fmt"
)

// ErrUnsupported is matched (with [errors.Is]) by the error for a file
// this package cannot read: not an image it knows, or an image using a
// feature its decoder lacks (a TIFF compressed with JPEG, a HEIF whose
// pictures are not HEVC). The caller keeps what it did before.
var ErrUnsupported = errors.New("imageconv: unsupported image")

// ErrLimit is the sentinel every [*LimitError] matches with [errors.Is].
var ErrLimit = errors.New("imageconv: image exceeds a limit")

// FormatError reports a file that is not what it claims or what its
// decoder reads: a truncated or corrupt image, an SVG that is not
// well-formed XML, a decoder that failed or panicked on it.
type FormatError struct {
	// Format is the image format, such as "HEIC" or "SVG"; "" when the
	// content is no known image.
	Format string
	// Reason says what is wrong, in lower case.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

func (e *FormatError) Error() string {
	s := "imageconv: "
	if e.Format != "" {
		s += e.Format + ": "
	}
	s += e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports an image this package cannot read, and why.
// It matches [ErrUnsupported] with [errors.Is].
type UnsupportedError struct {
	// Format is the image format when it is known, such as "TIFF".
	Format string
	// Feature says what is not supported, such as "JPEG compression".
	Feature string
}

func (e *UnsupportedError) Error() string {
	if e.Format == "" {
		return "imageconv: " + e.Feature
	}
	return "imageconv: " + e.Format + ": unsupported: " + e.Feature
}

// Is reports whether target is [ErrUnsupported].
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// LimitError reports an image that would need more than a [Limits] field
// allows: more pixels than MaxPixels (found from the header, before any
// decoding), a larger file, more decoder memory, more SVG elements. It
// matches [ErrLimit] with [errors.Is].
type LimitError struct {
	// Format is the image format, such as "PNG".
	Format string
	// Limit names the limit, such as "pixels" or "decoder memory bytes".
	Limit string
	// Max is the limit's value.
	Max int64
	// Got is what the file declares or needed, when known; 0 otherwise.
	Got int64
}

func (e *LimitError) Error() string {
	if e.Got > 0 {
		return fmt.Sprintf("imageconv: %s: image needs %d %s, over the limit of %d; raise imageconv.Limits to read it", e.Format, e.Got, e.Limit, e.Max)
	}
	return fmt.Sprintf("imageconv: %s: image exceeds the limit of %d %s; raise imageconv.Limits to read it", e.Format, e.Max, e.Limit)
}

// Is reports whether target is [ErrLimit].
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

func formatErr(format, reason string, err error) error {
	return &FormatError{Format: format, Reason: reason, Err: err}
}

func limitErr(format, limit string, max, got int64) error {
	return &LimitError{Format: format, Limit: limit, Max: max, Got: got}
}

func unsupported(format, feature string) error {
	return &UnsupportedError{Format: format, Feature: feature}
}
