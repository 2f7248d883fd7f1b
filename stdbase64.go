package keel

import (
	"encoding/base64"
	"fmt"
	"runtime"
	"sync"
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

// parallelDecodeMin is the length of base64 from which decodeStdBase64
// decodes in parts on several goroutines: a 1 MiB file's 1.4 MB of base64
// takes most of a millisecond on one core, and a request holding it waits
// for that before anything else can happen.
const parallelDecodeMin = 128 << 10

// maxDecodeParts bounds the goroutines one payload is decoded on.
const maxDecodeParts = 4

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
	src := unsafe.Slice(unsafe.StringData(payload), len(payload))
	parts := 1
	if len(src) >= parallelDecodeMin {
		parts = min(runtime.GOMAXPROCS(0), maxDecodeParts)
	}
	// Every part but the last is a whole number of 4-byte groups and must
	// decode to exactly 3 bytes a group: a padding or a skipped line break
	// inside it would give fewer.
	size := len(src) / parts / 4 * 4
	total := 0
	var failed bool
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*size, (i+1)*size
		last := i == parts-1
		if last {
			hi = len(src)
		}
		// Each part gets only its own share of out: the decoder writes
		// eight bytes at a time where it has room, past what it decoded.
		end := min(hi/4*3, len(out))
		dst := out[lo/4*3 : end : end]
		decode := func() {
			n, err := enc.Decode(dst, src[lo:hi])
			mu.Lock()
			defer mu.Unlock()
			total += n
			if err != nil || !last && n != (hi-lo)/4*3 {
				failed = true
			}
		}
		if last {
			decode()
		} else {
			wg.Go(decode)
		}
	}
	wg.Wait()
	if failed || enc.EncodedLen(total) != len(payload) {
		return nil
	}
	return out[:total]
}
