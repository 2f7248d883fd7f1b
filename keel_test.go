package keel_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

func TestNormalizeMediaType(t *testing.T) {
	tests := map[string]string{
		"Application/PDF":           "application/pdf",
		" text/csv ; charset=utf-8": "text/csv",
		"":                          "",
		";x":                        "",
	}
	for in, want := range tests {
		if got := keel.NormalizeMediaType(in); got != want {
			t.Errorf("Got(NormalizeMediaType(%q)) = %q; want %q", in, got, want)
		}
	}
}

func TestFileSourceAndInlineData(t *testing.T) {
	tests := []struct {
		name    string
		part    keel.FilePart
		source  keel.FileSource
		data    string
		wantErr error
	}{
		{"bytes", keel.FilePart{Data: []byte("abc")}, keel.SourceBytes, "abc", nil},
		{"empty bytes", keel.FilePart{Data: []byte{}}, keel.SourceBytes, "", nil},
		{"data url", keel.FilePart{URL: "data:text/plain;base64,aGk="}, keel.SourceDataURL, "hi", nil},
		{"data url unpadded", keel.FilePart{URL: "DATA:text/plain;base64,aGk"}, keel.SourceDataURL, "hi", nil},
		{"data url plain", keel.FilePart{URL: "data:text/plain,hi"}, keel.SourceDataURL, "hi", nil},
		{"data url broken", keel.FilePart{URL: "data:text/plain;base64,***"}, keel.SourceDataURL, "", keel.ErrUndecodableData},
		{"data url no comma", keel.FilePart{URL: "data:text/plain;base64"}, keel.SourceDataURL, "", keel.ErrUndecodableData},
		{"https", keel.FilePart{URL: "https://example.com/a.pdf"}, keel.SourceHTTP, "", keel.ErrNotInline},
		{"reference", keel.FilePart{URL: "file-abc123"}, keel.SourceReference, "", keel.ErrNotInline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.part.Source(); got != tt.source {
				t.Errorf("Got(Source()) = %v; want %v", got, tt.source)
			}
			data, err := tt.part.InlineData()
			if !errors.Is(err, tt.wantErr) || string(data) != tt.data {
				t.Errorf("Got(InlineData()) = %q, %v; want %q, %v", data, err, tt.data, tt.wantErr)
			}
		})
	}
}

func TestDataURLRoundTrip(t *testing.T) {
	data := []byte{0, 1, 2, 250, 251, 252, 253, 254, 255}
	_, got, err := keel.ParseDataURL(keel.DataURL("application/octet-stream", data))
	if err != nil || string(got) != string(data) {
		t.Errorf("Got(round trip) = %v, %v; want %v", got, err, data)
	}
}

func TestIsRetryableStatus(t *testing.T) {
	yes, no := http.Header{"X-Should-Retry": {"true"}}, http.Header{"X-Should-Retry": {"false"}}
	tests := []struct {
		status int
		h      http.Header
		want   bool
	}{
		{0, nil, true}, {400, nil, false}, {401, nil, false}, {408, nil, true}, {409, nil, true},
		{429, nil, true}, {500, nil, true}, {502, nil, true}, {529, nil, true},
		{400, yes, true}, {503, no, false},
	}
	for _, tt := range tests {
		if got := keel.IsRetryableStatus(tt.status, tt.h); got != tt.want {
			t.Errorf("Got(IsRetryableStatus(%d, %v)) = %v; want %v", tt.status, tt.h, got, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := keel.RetryAfter(tt.h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Got(RetryAfter(%v)) = %v, %v; want %v, %v", tt.h, got, ok, tt.want, tt.ok)
		}
	}
}

// TestAPICallErrorRetryAfter checks that a wait asked for in a header
// wins over one asked for in the body, which counts when no header does.
func TestAPICallErrorRetryAfter(t *testing.T) {
	tests := []struct {
		err  *keel.APICallError
		want time.Duration
		ok   bool
	}{
		{&keel.APICallError{RetryDelay: 38 * time.Second}, 38 * time.Second, true},
		{&keel.APICallError{Header: http.Header{"Retry-After": {"2"}}, RetryDelay: 38 * time.Second}, 2 * time.Second, true},
		{&keel.APICallError{Header: http.Header{"Retry-After": {"soon"}}, RetryDelay: time.Second}, time.Second, true},
		{&keel.APICallError{}, 0, false},
	}
	for _, tt := range tests {
		if got, ok := tt.err.RetryAfter(); got != tt.want || ok != tt.ok {
			t.Errorf("Got(RetryAfter() of %v, %v) = %v, %v; want %v, %v", tt.err.Header, tt.err.RetryDelay, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAPICallErrorMessageAndCause(t *testing.T) {
	cause := errors.New("sdk error")
	err := &keel.APICallError{Provider: "openai", StatusCode: 400, Message: "Invalid MIME type.", Cause: cause}
	if got, want := err.Error(), "openai: API call failed with status 400: Invalid MIME type."; got != want {
		t.Errorf("Got(Error()) = %q; want %q", got, want)
	}
	if !errors.Is(err, cause) {
		t.Errorf("Got(errors.Is(err, cause)) = false; want true")
	}
}
