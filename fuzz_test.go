package keel_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// FuzzCheckMediaType checks that a media type CheckMediaType accepts is
// safe to write in a header and normalises to an accepted "type/subtype",
// and that a refusal wraps keel.ErrInvalidMediaType and never repeats a
// control character.
func FuzzCheckMediaType(f *testing.F) {
	for _, s := range []string{"application/pdf", "Text/CSV; charset=utf-8", "text/csv;", "a/b;c=\"d e\"", "image/svg+xml",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "text/plain\r\nX-Evil: 1", "/", "a/", "*/*", "\x00", strings.Repeat("a", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, mt string) {
		err := keel.CheckMediaType(mt)
		if err != nil {
			if !errors.Is(err, keel.ErrInvalidMediaType) {
				t.Fatalf("Got(CheckMediaType(%q)) = %v; want keel.ErrInvalidMediaType", mt, err)
			}
			for _, c := range []byte(err.Error()) {
				if c < 0x20 || c == 0x7f {
					t.Fatalf("Got(CheckMediaType(%q)) = %q; want no control character in the error", mt, err)
				}
			}
			return
		}
		if len(mt) > keel.MaxMediaTypeLength || strings.ContainsAny(mt, "\r\n\x00") {
			t.Fatalf("Got(CheckMediaType(%q)) = nil; want a refusal of a long or multi-line value", mt)
		}
		norm := keel.NormalizeMediaType(mt)
		if strings.Count(norm, "/") != 1 || keel.CheckMediaType(norm) != nil || keel.NormalizeMediaType(norm) != norm {
			t.Fatalf("Got(NormalizeMediaType(%q)) = %q; want an accepted type/subtype, stable", mt, norm)
		}
	})
}

// FuzzBase64 checks the two base64 readers: FileFromBase64 takes exactly
// the standard, padded encoding of some bytes and gives those bytes, and
// DecodeBase64, lenient, agrees with it and fails only with
// keel.ErrUndecodableData.
func FuzzBase64(f *testing.F) {
	for _, s := range []string{"aGk=", "aGk", "aGl=", "a-_b", "", "====", " aGk= ", "aG\nk="} {
		f.Add(s, []byte("hi\xff"))
	}
	f.Fuzz(func(t *testing.T, b64 string, raw []byte) {
		lenient, lerr := keel.DecodeBase64(b64)
		if lerr != nil && !errors.Is(lerr, keel.ErrUndecodableData) {
			t.Fatalf("Got(DecodeBase64(%q)) = %v; want keel.ErrUndecodableData", b64, lerr)
		}
		part, err := keel.FileFromBase64(b64, "application/octet-stream", "")
		switch {
		case err != nil && !errors.Is(err, keel.ErrUndecodableData):
			t.Fatalf("Got(FileFromBase64(%q)) = %v; want keel.ErrUndecodableData", b64, err)
		case err == nil && base64.StdEncoding.EncodeToString(part.Data) != b64:
			t.Fatalf("Got(FileFromBase64(%q)) = %q; want only the standard encoding of its bytes accepted", b64, part.Data)
		case err == nil && (lerr != nil || !bytes.Equal(lenient, part.Data)):
			t.Fatalf("Got(DecodeBase64(%q)) = %q, %v; want %q as FileFromBase64", b64, lenient, lerr, part.Data)
		}
		std := base64.StdEncoding.EncodeToString(raw)
		if part, err := keel.FileFromBase64(std, "", ""); err != nil || !bytes.Equal(part.Data, raw) {
			t.Fatalf("Got(FileFromBase64(%q)) = %q, %v; want %q", std, part.Data, err, raw)
		}
	})
}

// FuzzRetryAfter checks that a provider's Retry-After-Ms or Retry-After
// header, whatever it says, is never read as a negative wait, and that a
// retryable flag never flips on headers other than X-Should-Retry.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"2", "0.5", "-1", "1e300", "Inf", "NaN", "Wed, 21 Oct 2015 07:28:00 GMT", "", "9223372036854775807"} {
		f.Add(s, s, 429)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, after string, status int) {
		h := http.Header{}
		h.Set("Retry-After-Ms", ms)
		h.Set("Retry-After", after)
		if d, ok := keel.RetryAfter(h, now); d < 0 || !ok && d != 0 {
			t.Fatalf("Got(RetryAfter(Retry-After-Ms %q, Retry-After %q)) = %v, %v; want a wait of at least 0", ms, after, d, ok)
		}
		if got, want := keel.IsRetryableStatus(status, h), keel.IsRetryableStatus(status, nil); got != want {
			t.Fatalf("Got(IsRetryableStatus(%d) with Retry-After headers) = %v; want %v as without", status, got, want)
		}
	})
}
