package keel

import (
	"encoding/base64"
	"fmt"
	"unsafe"
)

// FileFromBase64 returns a file part holding the bytes that b64 encodes.
// b64 must be exactly what base64.StdEncoding writes for its bytes
// (padded, zero padding bits, no line breaks), so that encoding the bytes
// again gives b64 back: a file stored as bytes then reads back as it was
// sent. Anything else is an error wrapping [ErrUndecodableData] (use
// [DecodeBase64] for lenient decoding).
func FileFromBase64(b64, mediaType, filename string) (FilePart, error) {
	data := decodeStdBase64(b64)
	if data == nil {
		return FilePart{}, fmt.Errorf("%w: not standard, padded base64", ErrUndecodableData)
	}
	return FilePart{Data: data, MediaType: mediaType, Filename: filename}, nil
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
