package inline

import (
	"encoding/base64"
	"io"
)

// base64Reader reads the standard base64 of src, encoding straight into
// the reader's buffer as it goes, so that a large file is never held
// encoded in full.
type base64Reader struct {
	src  []byte
	buf  [4]byte
	pend []byte // encoded bytes not yet read
}

func (r *base64Reader) Read(p []byte) (int, error) {
	if len(r.pend) > 0 {
		n := copy(p, r.pend)
		r.pend = r.pend[n:]
		return n, nil
	}
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	if len(p) < 4 {
		// Too small for one group: encode it aside and hand it out in
		// pieces.
		n := min(3, len(r.src))
		base64.StdEncoding.Encode(r.buf[:], r.src[:n])
		r.src = r.src[n:]
		r.pend = r.buf[:base64.StdEncoding.EncodedLen(n)]
		return r.Read(p)
	}
	n := len(p) / 4 * 3
	if n >= len(r.src) {
		n = len(r.src) // the last group may be padded
	}
	base64.StdEncoding.Encode(p, r.src[:n])
	r.src = r.src[n:]
	return base64.StdEncoding.EncodedLen(n), nil
}
