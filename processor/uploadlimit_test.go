package processor_test

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// TestFileUploadTakesAFileOfExactlyTheLimit checks the limit's edge: a
// file of exactly the limit is taken; one byte more is refused (see
// TestFileUploadInputErrors).
func TestFileUploadTakesAFileOfExactlyTheLimit(t *testing.T) {
	ws := workspace.New(keeltest.NewSandbox("mem"))
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, MaxSize: func(processor.FileInfo) int64 { return 10 }})
	if err != nil {
		t.Fatal(err)
	}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("here", keel.FilePart{Data: []byte("0123456789"), MediaType: "text/csv", Filename: "ten.csv"})})
	if err := u.processInput(p); err != nil {
		t.Fatalf("Got(ProcessInput with a file of exactly the limit) = %v; want it taken", err)
	}
}
