package server

import (
	"encoding/base64"
	"unsafe"
)

// canonicalBase64 decodes payload when it is exactly what
// base64.StdEncoding writes for its bytes (padded, zero padding bits, no
// line breaks), so that encoding the bytes gives payload back; otherwise
// it returns nil.
func canonicalBase64(payload string) []byte {
	if len(payload)%4 != 0 {
		return nil // not padded: not what StdEncoding writes
	}
	enc := base64.StdEncoding.Strict()
	out := make([]byte, len(payload)/4*3)
	// Decode reads payload in place: converting it to []byte would copy a
	// file's whole base64 for nothing.
	n, err := enc.Decode(out, unsafe.Slice(unsafe.StringData(payload), len(payload)))
	if err != nil || enc.EncodedLen(n) != len(payload) {
		return nil
	}
	return out[:n]
}
