package keel

import (
	"encoding/base64"
	"fmt"
	"unsafe"
)

// FileFromBase64 returns a file part holding the bytes that b64 encodes,
// and remembers b64 as their encoding: adapters that send files as base64
// then send b64 as it is instead of encoding the bytes again (see
// [FilePart.StdBase64]). b64 must be exactly what base64.StdEncoding
// writes for its bytes (padded, zero padding bits, no line breaks), so
// that the two always agree; anything else is an error wrapping
// [ErrUndecodableData] (use [DecodeBase64] for lenient decoding).
//
// The part keeps b64, which must not change: a string's bytes never do,
// unless made with package unsafe.
func FileFromBase64(b64, mediaType, filename string) (FilePart, error) {
	data := decodeStdBase64(b64)
	if data == nil {
		return FilePart{}, fmt.Errorf("%w: not standard, padded base64", ErrUndecodableData)
	}
	f := FilePart{Data: data, MediaType: mediaType, Filename: filename}
	if len(data) > 0 {
		f.b64, f.b64Of = b64, &data[0]
	}
	return f, nil
}

// StdBase64 returns the standard, padded base64 of Data without encoding
// it, when the part was made from that text by [FileFromBase64] and its
// Data is still the slice decoded then; ok is false otherwise.
func (f FilePart) StdBase64() (b64 string, ok bool) {
	if f.b64Of == nil || len(f.Data) == 0 || unsafe.SliceData(f.Data) != f.b64Of ||
		base64.StdEncoding.EncodedLen(len(f.Data)) != len(f.b64) {
		return "", false
	}
	return f.b64, true
}

// decodeStdBase64 decodes payload when it is exactly what
// base64.StdEncoding writes for its bytes, so that encoding the bytes
// gives payload back; otherwise it returns nil. An empty payload gives an
// empty, non-nil slice.
func decodeStdBase64(payload string) []byte {
	if len(payload)%4 != 0 {
		return nil // not padded: not what StdEncoding writes
	}
	enc := base64.StdEncoding.Strict()
	out := make([]byte, len(payload)/4*3)
	// Decode reads payload in place: converting it to []byte would copy a
	// file's whole base64 for nothing.
	n, err := enc.Decode(out, unsafe.Slice(unsafe.StringData(payload), len(payload)))
	// Decode skips line breaks: a payload holding one decodes to fewer
	// bytes than its length implies, and is not canonical.
	if err != nil || enc.EncodedLen(n) != len(payload) {
		return nil
	}
	return out[:n]
}
