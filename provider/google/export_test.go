package google

import "io"

// NewBase64Reader exposes the streaming base64 encoder to the tests.
func NewBase64Reader(src []byte) io.Reader { return &base64Reader{src: src} }
