package stored_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory/internal/stored"
)

func TestDecodeMessageCorrupt(t *testing.T) {
	data := []byte("hello")
	d := stored.Digest(data)
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
			return nil, stored.VerifyBlob(d, []byte("HELLO"))
		}},
	}
	for _, c := range cases {
		_, err := stored.Decode(stored.Message{ID: "m", Role: keel.RoleUser, Parts: []byte(c.parts), Metadata: []byte(c.meta)}, c.blob)
		if !errors.Is(err, stored.ErrCorrupt) {
			t.Errorf("Got(Decode(%s)) = %v; want an error wrapping ErrCorrupt", c.name, err)
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
		enc, blobs, err := stored.EncodeMessage(keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{URL: c.url}}})
		if err != nil {
			t.Errorf("Got(EncodeMessage(%q)) = %v; want no error", c.url, err)
			continue
		}
		if got := len(blobs) == 1; got != c.wantBlob {
			t.Errorf("Got(EncodeMessage(%q) keeps a blob) = %v; want %v", c.url, got, c.wantBlob)
		}
		back, err := stored.Decode(enc, func(d string) ([]byte, error) { return blobs[0].Data, nil })
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
		{strings.Repeat("x", stored.MaxIDLength), true},
		{strings.Repeat("x", stored.MaxIDLength+1), false},
		{"", false},
		{"a b", false},
		{"a/b", false},
		{"é", false},
		{"user@example.com", false},
		{".", false},
		{"..", false},
		{"...", true},
		{".hidden", true},
		{"a..b", true},
	}
	for _, c := range cases {
		if got := stored.ValidID(c.id); got != c.want {
			t.Errorf("Got(ValidID(%.20q)) = %v; want %v", c.id, got, c.want)
		}
	}
	var idErr *stored.IDError
	if err := stored.CheckID("thread", ".."); !errors.As(err, &idErr) || idErr.Kind != "thread" || idErr.ID != ".." || !errors.Is(err, stored.ErrInvalid) {
		t.Errorf("Got(CheckID(thread, ..)) = %v; want an *IDError naming the thread id, wrapping ErrInvalid", err)
	}
	if id := stored.NewID(); !stored.ValidID(id) || len(id) != 36 || id == stored.NewID() {
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
		off, n, more := stored.Window(c.page, c.perPage, c.total)
		if off != c.off || n != c.n || more != c.more {
			t.Errorf("Got(Window(%d, %d, %d)) = %d, %d, %v; want %d, %d, %v", c.page, c.perPage, c.total, off, n, more, c.off, c.n, c.more)
		}
	}
}

func TestLast(t *testing.T) {
	cases := []struct {
		n, total, off, count int
		more                 bool
	}{
		{10, 100000, 99990, 10, true},
		{10, 10, 0, 10, false},
		{10, 3, 0, 3, false},
		{1, 0, 0, 0, false},
	}
	for _, c := range cases {
		off, n, more := stored.Last(c.n, c.total)
		if off != c.off || n != c.count || more != c.more {
			t.Errorf("Got(Last(%d, %d)) = %d, %d, %v; want %d, %d, %v", c.n, c.total, off, n, more, c.off, c.count, c.more)
		}
	}
}

// TestDigests checks that every file kept as a blob comes back with its
// digest, from decoding and from AsSaved, and that a file kept by URL has
// none, whatever the caller gave.
func TestDigests(t *testing.T) {
	data := []byte("a,b\n1,2\n")
	sum := stored.Digest(data)
	m := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "see"},
		keel.FilePart{Data: data, MediaType: "text/csv", SHA256: "wrong"},
		keel.FilePart{URL: keel.DataURL("text/csv", data)},
		keel.FilePart{URL: "https://example.com/a.csv", SHA256: "given"},
	}}
	enc, blobs, err := stored.Encode([]keel.Message{m})
	if err != nil {
		t.Fatal(err)
	}
	saved := stored.AsSaved([]keel.Message{m}, enc)[0]
	back, err := stored.Decode(enc[0], func(string) ([]byte, error) { return blobs[0].Data, nil })
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]keel.Message{"AsSaved": saved, "Decode": back} {
		want := []string{sum, sum, ""}
		for i, w := range want {
			if f := got.Parts[i+1].(keel.FilePart); f.SHA256 != w {
				t.Errorf("Got(%s part %d SHA256) = %q; want %q", name, i+1, f.SHA256, w)
			}
		}
	}
	if f := m.Parts[1].(keel.FilePart); f.SHA256 != "wrong" {
		t.Errorf("Got(caller's part after AsSaved) SHA256 %q; want it untouched", f.SHA256)
	}
}
