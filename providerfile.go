package keel

import (
	"context"
	"time"
)

// FileStore is a provider's own store of files: a file uploaded to it
// once is named in later requests by a reference, so a request carries a
// few bytes where the file's base64 would not fit (Gemini takes 20 MB of
// inline data per request, and stores files of up to 2 GB for 48 hours).
// A [Model] whose provider has one says so through [FileStorer]; find it
// with [FileStoreOf].
//
// Implementations are safe for concurrent use.
type FileStore interface {
	// InlineLimit is the most file data, as sent (base64 counted), that
	// one request may carry inline; 0 when it is not known. A request
	// whose inline files would be more sends the largest of them by
	// reference.
	InlineLimit() int64
	// FileScope names where a reference is valid: the provider, its base
	// URL and the account (a short hash of the key, never the key). A
	// reference saved under one scope is never sent under another: to
	// another server, or with another key, it names nothing, or someone
	// else's file.
	FileScope() string
	// UploadFile stores the inline content of f (bytes or a data: URL)
	// with the provider, reading it as it is sent: the file is never held
	// twice in memory. f.MediaType and f.Filename go with it. A file of a
	// type the provider's requests cannot name by reference is refused
	// with an [*UnsupportedFunctionalityError] before anything is sent; a
	// file that is not inline with an error wrapping [ErrNotInline]; the
	// provider's own refusal is an [*APICallError].
	UploadFile(ctx context.Context, f FilePart) (ProviderFile, error)
}

// FileStorer is implemented by models that may have a provider file
// store. It is a method that can say no, rather than the store's methods
// on the model, because one adapter type serves both providers that have
// a store and servers that have none (OpenAI and the OpenAI-compatible
// servers): a type assertion for [FileStore] would then tell a lie. A
// model that wraps another should ask the wrapped one.
type FileStorer interface {
	// FileStore returns the provider's file store, or nil when the
	// provider has none.
	FileStore() FileStore
}

// FileStoreOf returns m's provider file store, or nil when it has none.
func FileStoreOf(m Model) FileStore {
	if s, ok := m.(FileStorer); ok {
		return s.FileStore()
	}
	return nil
}

// ProviderFile is a file kept in a provider's [FileStore].
type ProviderFile struct {
	// Ref names the file in requests: Gemini's file URI
	// (https://generativelanguage.googleapis.com/v1beta/files/abc), an
	// OpenAI file ID ("file-abc"), an Anthropic file ID ("file_abc").
	Ref string
	// MediaType is the file's media type as the provider keeps it.
	MediaType string
	// ExpiresAt is when the provider stops keeping the file: Gemini says
	// (48 hours after the upload); for providers that keep files until
	// they are deleted, the adapter sets a date it deletes nothing
	// before, and a reference the provider no longer knows is answered
	// with [FaultFileGone].
	ExpiresAt time.Time
}

// Part returns the file part that names f by reference, with the file's
// name.
func (f ProviderFile) Part(filename string) FilePart {
	return FilePart{URL: f.Ref, MediaType: f.MediaType, Filename: filename}
}

// Expired reports whether f can no longer be used at now: from ExpiresAt
// on.
func (f ProviderFile) Expired(now time.Time) bool { return !now.Before(f.ExpiresAt) }

// FaultFileGone is the [Fault] of an answer that says a file the request
// named by reference is not there: it expired, was deleted, or belongs to
// another account (Gemini's 403 "You do not have permission to access the
// File abc or it may not exist.", OpenAI's "No such File object", an
// Anthropic 404 about a file). Uploading the file again mends it.
const FaultFileGone Fault = "file-gone"
