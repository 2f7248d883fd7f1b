package workspace_test

import (
	"testing"

	"github.com/keel-go/keel/workspace"
)

// TestMaxUploadSizeIsTenMiB pins the upload limit to its documented
// figure; other tests build their inputs from the constant.
func TestMaxUploadSizeIsTenMiB(t *testing.T) {
	if workspace.MaxUploadSize != 10<<20 {
		t.Errorf("Got(MaxUploadSize) = %d; want %d (10 MiB)", workspace.MaxUploadSize, 10<<20)
	}
}
