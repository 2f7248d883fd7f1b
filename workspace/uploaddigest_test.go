package workspace_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
)

func TestUploadTrustsGivenDigest(t *testing.T) {
	data := []byte("a,b\n1,2\n")
	sum := sha256.Sum256(data)
	ctx := context.Background()

	computed, err := workspace.Upload(ctx, keeltest.NewSandbox("a"), "t", "", workspace.File{Name: "x.csv", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	given, err := workspace.Upload(ctx, keeltest.NewSandbox("b"), "t", "", workspace.File{Name: "x.csv", Data: data, SHA256: sum})
	if err != nil {
		t.Fatal(err)
	}
	if computed.RelPath != given.RelPath || given.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("Got(paths) = %q, %q; want the same content-addressed path", computed.RelPath, given.RelPath)
	}

	// The given digest is used as is: hashing again is what it saves.
	var other [sha256.Size]byte
	other[0] = 1
	trusted, err := workspace.Upload(ctx, keeltest.NewSandbox("c"), "t", "", workspace.File{Name: "x.csv", Data: data, SHA256: other})
	if err != nil {
		t.Fatal(err)
	}
	if want := "uploads/t/" + hex.EncodeToString(other[:]) + ".csv"; trusted.RelPath != want {
		t.Errorf("Got(RelPath) = %q; want %q", trusted.RelPath, want)
	}
}
