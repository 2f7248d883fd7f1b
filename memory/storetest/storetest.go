package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
)

// Run runs the conformance suite against the stores open returns. open is
// called once per case and must return a new, empty store; closing it is
// open's business (t.Cleanup). [RunShared] runs the cases that need two
// store values on one database.
func Run(t *testing.T, open func(t *testing.T) memory.Store) {
	cases := []struct {
		name string
		run  func(t *testing.T, s memory.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"ReturnedValuesAreCopies", testCopies},
		{"InvalidInput", testInvalidInput},
		{"NothingHalfWritten", testNothingHalfWritten},
		{"NotFound", testNotFound},
		{"Conflict", testConflict},
		{"Ownership", testOwnership},
		{"CreateThreadDefaults", testCreateThreadDefaults},
		{"UpdateThread", testUpdateThread},
		{"ThreadPaging", testThreadPaging},
		{"ThreadOrdering", testThreadOrdering},
		{"MessagePaging", testMessagePaging},
		{"MessageOrdering", testMessageOrdering},
		{"ReplaceMessage", testReplaceMessage},
		{"DeleteThread", testDeleteThread},
		{"BlobRefCounting", testBlobRefCounting},
		{"BlobReadOncePerLoad", testBlobReadOnce},
		{"ConcurrentWriters", testConcurrentWriters},
		{"ConcurrentCreate", testConcurrentCreate},
		{"CancelledContext", testCancelled},
		{"StartThread", testStartThread},
		{"StartThreadConflict", testStartThreadConflict},
		{"StartThreadInvalid", testStartThreadInvalid},
		{"ConcurrentStart", testConcurrentStart},
		{"ThreadOwner", testThreadOwner},
		{"Window", testWindow},
		{"MessageCount", testMessageCount},
		{"FileDigests", testFileDigests},
		{"Refusals", testRefusals},
		{"RefusalExpiry", testRefusalExpiry},
		{"RefusalInvalid", testRefusalInvalid},
		{"TurnQueue", testTurnQueue},
		{"FileDescriptions", testFileDescriptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, open(t))
		})
	}
}

// t0 is the base of the times the suite stores: a millisecond-precise UTC
// time, so that what comes back must equal it exactly.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// at returns t0 plus n seconds.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

// Bytes returns n pseudo-random bytes, the same for the same seed, so that
// a file of them cannot be mistaken for another of the same size.
func Bytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func mustCreate(t *testing.T, s memory.Store, th memory.Thread) memory.Thread {
	t.Helper()
	got, err := s.CreateThread(context.Background(), th)
	if err != nil {
		t.Fatalf("CreateThread(%q) = %v; want no error", th.ID, err)
	}
	return got
}

func mustSave(t *testing.T, s memory.Store, resource, thread string, msgs ...keel.Message) []keel.Message {
	t.Helper()
	got, err := s.SaveMessages(context.Background(), resource, thread, msgs)
	if err != nil {
		t.Fatalf("SaveMessages(%q, %q) = %v; want no error", resource, thread, err)
	}
	if len(got) != len(msgs) {
		t.Fatalf("SaveMessages(%q, %q) returned %d messages; want %d", resource, thread, len(got), len(msgs))
	}
	return got
}

func mustList(t *testing.T, s memory.Store, resource, thread string, opts memory.ListMessagesOptions) memory.MessagePage {
	t.Helper()
	page, err := s.ListMessages(context.Background(), resource, thread, opts)
	if err != nil {
		t.Fatalf("ListMessages(%q, %q, %+v) = %v; want no error", resource, thread, opts, err)
	}
	return page
}

func ids(msgs []keel.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

func threadIDs(ts []memory.Thread) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// capability returns s as the optional capability C, or skips t: a store
// without it has nothing to check.
func capability[C any](t *testing.T, s memory.Store) C {
	t.Helper()
	c, ok := s.(C)
	if !ok {
		t.Skipf("%T does not implement %v, an optional capability", s, reflect.TypeFor[C]())
	}
	return c
}

func blobStats(t *testing.T, s memory.Store) (memory.BlobStats, bool) {
	t.Helper()
	r, ok := s.(memory.BlobReporter)
	if !ok {
		return memory.BlobStats{}, false
	}
	st, err := r.BlobStats(context.Background())
	if err != nil {
		t.Fatalf("BlobStats() = %v; want no error", err)
	}
	return st, true
}

// wantErr fails t unless err wraps target.
func wantErr(t *testing.T, call string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("Got(%s) = %v; want an error wrapping %v", call, err, target)
	}
}

// diffMessage describes how got differs from want, or returns "".
func diffMessage(got, want keel.Message) string {
	switch {
	case got.ID != want.ID:
		return fmt.Sprintf("id %q; want %q", got.ID, want.ID)
	case got.Role != want.Role:
		return fmt.Sprintf("role %q; want %q", got.Role, want.Role)
	case !got.CreatedAt.Equal(want.CreatedAt):
		return fmt.Sprintf("created %v; want %v", got.CreatedAt, want.CreatedAt)
	case !reflect.DeepEqual(got.Metadata, want.Metadata):
		return fmt.Sprintf("metadata %#v; want %#v", got.Metadata, want.Metadata)
	case (got.Parts == nil) != (want.Parts == nil) || len(got.Parts) != len(want.Parts):
		return fmt.Sprintf("%d parts (nil %v); want %d (nil %v)", len(got.Parts), got.Parts == nil, len(want.Parts), want.Parts == nil)
	}
	for i := range want.Parts {
		g, w := got.Parts[i], want.Parts[i]
		gf, gok := g.(keel.FilePart)
		wf, wok := w.(keel.FilePart)
		if gok && wok {
			// Compare files field by field, so that a 10 MiB mismatch is not
			// printed whole.
			switch {
			case (gf.Data == nil) != (wf.Data == nil):
				return fmt.Sprintf("part %d: data nil %v; want nil %v", i, gf.Data == nil, wf.Data == nil)
			case !bytes.Equal(gf.Data, wf.Data):
				return fmt.Sprintf("part %d: %d bytes of data, digest %s; want %d, digest %s", i, len(gf.Data), stored.Digest(gf.Data), len(wf.Data), stored.Digest(wf.Data))
			case gf.URL != wf.URL:
				return fmt.Sprintf("part %d: url %.80q; want %.80q", i, gf.URL, wf.URL)
			case gf.MediaType != wf.MediaType || gf.Filename != wf.Filename:
				return fmt.Sprintf("part %d: type %q name %q; want %q %q", i, gf.MediaType, gf.Filename, wf.MediaType, wf.Filename)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("part %d: %#v; want %#v", i, g, w)
		}
	}
	return ""
}

func wantMessages(t *testing.T, call string, got, want []keel.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Got(%s) = %d messages %q; want %d %q", call, len(got), ids(got), len(want), ids(want))
	}
	for i := range want {
		if d := diffMessage(got[i], want[i]); d != "" {
			t.Errorf("Got(%s) message %d: %s", call, i, d)
		}
	}
}
