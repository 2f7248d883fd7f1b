package processor_test

import (
	"testing"
	"time"

	"github.com/keel-go/keel/processor"
)

// TestDefaultsAreTheDocumentedOnes pins each default and each processor
// ID (which logs, recoveries and keel.yaml name) to its literal value, so
// that changing one is a visible decision.
func TestDefaultsAreTheDocumentedOnes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"DefaultMaxRetries", processor.DefaultMaxRetries, 3},
		{"DefaultStreamRetries", processor.DefaultStreamRetries, 1},
		{"DefaultMaxRetryAfter", processor.DefaultMaxRetryAfter, 30 * time.Second},
		{"DefaultRefusalExpiry", processor.DefaultRefusalExpiry, 24 * time.Hour},
		{"DefaultRefusalRefresh", processor.DefaultRefusalRefresh, 30 * time.Second},
		{"DefaultMaxFileSize", int64(processor.DefaultMaxFileSize), int64(10 << 20)},
		{"FileUploadID", processor.FileUploadID, "file-upload"},
		{"UnsupportedFileHandlerID", processor.UnsupportedFileHandlerID, "unsupported-file-handler"},
	} {
		if c.got != c.want {
			t.Errorf("Got(processor.%s) = %v; want %v", c.name, c.got, c.want)
		}
	}
}
