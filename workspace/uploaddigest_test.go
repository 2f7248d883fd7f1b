package workspace_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
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
	given, err := workspace.Upload(ctx, keeltest.NewSandbox("b"), "t", "", workspace.File{Name: "x.csv", Data: data, SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		t.Fatal(err)
	}
	if computed.RelPath != given.RelPath || given.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("Got(paths) = %q, %q; want the same content-addressed path", computed.RelPath, given.RelPath)
	}

	// The given digest is used as is: hashing again is what it saves.
	other := strings.Repeat("0", 63) + "1"
	trusted, err := workspace.Upload(ctx, keeltest.NewSandbox("c"), "t", "", workspace.File{Name: "x.csv", Data: data, SHA256: other})
	if err != nil {
		t.Fatal(err)
	}
	if want := "uploads/t/" + other + ".csv"; trusted.RelPath != want {
		t.Errorf("Got(RelPath) = %q; want %q", trusted.RelPath, want)
	}
}

// TestUploadRefusesMalformedDigest checks that a given digest that is not
// 64 lower-case hex digits never becomes part of a path.
func TestUploadRefusesMalformedDigest(t *testing.T) {
	for _, sum := range []string{"../../etc/passwd", strings.Repeat("A", 64), strings.Repeat("0", 63), strings.Repeat("0", 63) + "/"} {
		sb := keeltest.NewSandbox("sb")
		_, err := workspace.Upload(context.Background(), sb, "t", "", workspace.File{Name: "x.csv", Data: []byte("a"), SHA256: sum})
		if err == nil || !strings.Contains(err.Error(), "not 64 lower-case hex digits") {
			t.Errorf("Got(Upload with SHA256 %q) error %v; want the digest refused", sum, err)
		}
		if n := len(sb.Writes()); n != 0 {
			t.Errorf("Got(writes with SHA256 %q) = %d; want 0", sum, n)
		}
	}
}
