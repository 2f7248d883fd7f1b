package keel_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel"
)

func TestCheckMediaType(t *testing.T) {
	tests := []struct {
		mediaType string
		ok        bool
	}{
		{"application/pdf", true},
		{"Application/PDF", true},
		{"text/csv; charset=utf-8", true},
		{`text/plain; charset="utf-8"`, true},
		{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", true},
		{"image/svg+xml", true},
		{"application/x-www-form-urlencoded", true},
		{"application/pdf; name=" + strings.Repeat("x", 233), true}, // 255 bytes
		{"application/pdf; name=" + strings.Repeat("x", 234), false},
		{"", false},
		{"application", false},
		{"application/", false},
		{"/pdf", false},
		{"application/*", false},
		{"*/*", false},
		{"-text/plain", false},
		{"text/plain/extra", false},
		{"application/vnd.ms-excel\r\nX-Injected: 1", false},
		{"text/csv\n", false},
		{"text/csv;\tcharset=utf-8", false},
		{"text/csv\x00", false},
		{"text/csv\x7f", false},
		{"text/csvé", false},
		{"text/csv; charset", false},
		{"text/csv; a=1; a=2", false},
		{"text/" + strings.Repeat("x", 128), false}, // subtype over 127
	}
	for _, tt := range tests {
		err := keel.CheckMediaType(tt.mediaType)
		if (err == nil) != tt.ok {
			t.Errorf("Got(CheckMediaType(%q)) = %v; want ok %v", tt.mediaType, err, tt.ok)
		}
		if err != nil {
			if !errors.Is(err, keel.ErrInvalidMediaType) {
				t.Errorf("Got(CheckMediaType(%q)) = %v; want it to wrap ErrInvalidMediaType", tt.mediaType, err)
			}
			if strings.ContainsAny(err.Error(), "\r\n\t\x00\x7f") {
				t.Errorf("Got(CheckMediaType(%q)) = %q; want no control character in the message", tt.mediaType, err)
			}
		}
	}
}

func ExampleCheckMediaType() {
	fmt.Println(keel.CheckMediaType("text/csv; charset=utf-8"))
	fmt.Println(keel.CheckMediaType("application/vnd.ms-excel\r\nX-Injected: 1"))
	// Output:
	// <nil>
	// keel: invalid media type "application/vnd.ms-excel\r\nX-Injected: 1": byte 24 is 0x0d; want printable ASCII only (no control characters, no CR or LF)
}
