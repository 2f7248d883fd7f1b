package memory

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"
)

// FileDescription is what a vision model wrote of an image, for models
// that see none: what it shows and the text in it. It is kept by the
// describing model and the image's SHA-256, so that an image is described
// once, whichever thread, turn or server sends it again.
type FileDescription struct {
	// Model is the describing model, "provider/name".
	Model string
	// SHA256 is the image's digest, in lower-case hex.
	SHA256 string
	// Text is the description.
	Text string
	// CreatedAt is when it was written.
	CreatedAt time.Time
}

// MaxFileDescription caps [FileDescription].Text, in bytes.
const MaxFileDescription = 64 << 10

// Check reports what is wrong with d, wrapping [ErrInvalid].
func (d FileDescription) Check() error {
	switch {
	case d.Model == "" || len(d.Model) > 200 || !utf8.ValidString(d.Model):
		return fmt.Errorf("%w: file description: model %q", ErrInvalid, d.Model)
	case !isSHA256(d.SHA256):
		return fmt.Errorf("%w: file description: %q is no lower-case hex SHA-256", ErrInvalid, d.SHA256)
	case len(d.Text) > MaxFileDescription || !utf8.ValidString(d.Text):
		return fmt.Errorf("%w: file description: text of %d bytes, valid UTF-8 up to %d", ErrInvalid, len(d.Text), MaxFileDescription)
	}
	return nil
}

// isSHA256 reports whether s is a digest as stores key files by: 64
// lower-case hex digits.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// FileDescriptions is implemented by stores that keep what a vision
// model wrote of images (see [FileDescription]). Find it with
// [Capability].
type FileDescriptions interface {
	// FileDescription returns the description of the image by the
	// model, or an error wrapping [ErrNotFound].
	FileDescription(ctx context.Context, model, sha256 string) (FileDescription, error)
	// RecordFileDescription stores d unless the model's description of
	// the image is stored already: the first one written stays, so that
	// servers describing an image at once agree on it. Its CreatedAt is
	// set to now when zero. Bad input is an error wrapping [ErrInvalid].
	RecordFileDescription(ctx context.Context, d FileDescription) error
}

// FileDescription implements [FileDescriptions.FileDescription].
func (s *InMemory) FileDescription(ctx context.Context, model, sha256 string) (FileDescription, error) {
	if err := ctx.Err(); err != nil {
		return FileDescription{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.descriptions[[2]string{model, sha256}]
	if !ok {
		return FileDescription{}, fmt.Errorf("memory: file description: %w", ErrNotFound)
	}
	return d, nil
}

// RecordFileDescription implements
// [FileDescriptions.RecordFileDescription].
func (s *InMemory) RecordFileDescription(ctx context.Context, d FileDescription) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.Check(); err != nil {
		return fmt.Errorf("memory: record file description: %w", err)
	}
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.now()
	}
	d.CreatedAt = d.CreatedAt.UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	key := [2]string{d.Model, d.SHA256}
	if _, ok := s.descriptions[key]; !ok {
		if s.descriptions == nil {
			s.descriptions = make(map[[2]string]FileDescription)
		}
		s.descriptions[key] = d
	}
	return nil
}
