package memory_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

func TestDecodeMessageCorrupt(t *testing.T) {
	data := []byte("hello")
	d := memory.Digest(data)
	blobs := func(got []byte) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return got, nil }
	}
	cases := []struct {
		name  string
		parts string
		meta  string
		blob  func(string) ([]byte, error)
	}{
		{"parts not JSON", `[{`, `null`, blobs(data)},
		{"unknown part type", `[{"type":"video"}]`, `null`, blobs(data)},
		{"blob of another size", `[{"type":"file","blob":"` + d + `","size":6}]`, `null`, blobs(data)},
		{"metadata not an object", `[]`, `[1]`, blobs(data)},
		{"blob error", `[{"type":"file","blob":"` + d + `","size":5}]`, `null`, func(string) ([]byte, error) {
			return nil, memory.VerifyBlob(d, []byte("HELLO"))
		}},
	}
	for _, c := range cases {
		_, err := memory.DecodeMessage(memory.EncodedMessage{ID: "m", Role: keel.RoleUser, Parts: []byte(c.parts), Metadata: []byte(c.meta)}, c.blob)
		if !errors.Is(err, memory.ErrCorrupt) {
			t.Errorf("Got(DecodeMessage(%s)) = %v; want an error wrapping ErrCorrupt", c.name, err)
		}
	}
}

func TestEncodeMessageDataURL(t *testing.T) {
	cases := []struct {
		url      string
		wantBlob bool
	}{
		{keel.DataURL("text/plain", []byte("hi")), true},
		{keel.DataURL("", []byte{}), true},
		{"data:text/plain,hi", false},          // not base64: kept as written
		{"DATA:text/plain;base64,aGk=", false}, // not as keel writes it
		{"data:text/plain;base64,aGk", false},  // unpadded
		{"https://example.com/a", false},
	}
	for _, c := range cases {
		enc, blobs, err := memory.EncodeMessage(keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{URL: c.url}}})
		if err != nil {
			t.Errorf("Got(EncodeMessage(%q)) = %v; want no error", c.url, err)
			continue
		}
		if got := len(blobs) == 1; got != c.wantBlob {
			t.Errorf("Got(EncodeMessage(%q) keeps a blob) = %v; want %v", c.url, got, c.wantBlob)
		}
		back, err := memory.DecodeMessage(enc, func(d string) ([]byte, error) { return blobs[0].Data, nil })
		if err != nil || back.Parts[0].(keel.FilePart).URL != c.url {
			t.Errorf("Got(round trip of %q) = %v, %v; want the URL as it was", c.url, back.Parts, err)
		}
	}
}

func TestValidID(t *testing.T) {
	cases := []struct {
		id   string
		want bool
	}{
		{"a", true},
		{"thread-1", true},
		{"user:42.v2_x", true},
		{strings.Repeat("x", memory.MaxIDLength), true},
		{strings.Repeat("x", memory.MaxIDLength+1), false},
		{"", false},
		{"a b", false},
		{"a/b", false},
		{"é", false},
		{"user@example.com", false},
	}
	for _, c := range cases {
		if got := memory.ValidID(c.id); got != c.want {
			t.Errorf("Got(ValidID(%.20q)) = %v; want %v", c.id, got, c.want)
		}
	}
	if id := memory.NewID(); !memory.ValidID(id) || len(id) != 36 || id == memory.NewID() {
		t.Errorf("Got(NewID()) = %q; want a fresh valid UUID", id)
	}
}

func TestWindow(t *testing.T) {
	cases := []struct {
		page, perPage, total int
		off, n               int
		more                 bool
	}{
		{0, 0, 5, 0, 5, false},
		{1, 0, 5, 5, 0, false},
		{0, 2, 5, 0, 2, true},
		{2, 2, 5, 4, 1, false},
		{3, 2, 5, 5, 0, false},
		{0, 10, 0, 0, 0, false},
		{1, 5, 10, 5, 5, false},
	}
	for _, c := range cases {
		off, n, more := memory.Window(c.page, c.perPage, c.total)
		if off != c.off || n != c.n || more != c.more {
			t.Errorf("Got(Window(%d, %d, %d)) = %d, %d, %v; want %d, %d, %v", c.page, c.perPage, c.total, off, n, more, c.off, c.n, c.more)
		}
	}
}
