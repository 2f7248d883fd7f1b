package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// The scopes and digests the provider-file cases store under.
const (
	geminiScope = "google https://generativelanguage.googleapis.com/ key:0123456789abcdef"
	openaiScope = "openai https://api.openai.com/v1 key:fedcba9876543210"
)

var (
	digestA = strings.Repeat("a1", 32)
	digestB = strings.Repeat("b2", 32)
)

func mustProviderFile(t *testing.T, s memory.ProviderFiles, scope, sum string) (keel.ProviderFile, bool) {
	t.Helper()
	f, ok, err := s.ProviderFile(context.Background(), scope, sum)
	if err != nil {
		t.Fatalf("ProviderFile(%q, %s) = %v; want no error", scope, sum[:8], err)
	}
	return f, ok
}

func mustSaveProviderFile(t *testing.T, s memory.ProviderFiles, scope, sum string, f keel.ProviderFile) {
	t.Helper()
	if err := s.SaveProviderFile(context.Background(), scope, sum, f); err != nil {
		t.Fatalf("SaveProviderFile(%q, %s, %s) = %v; want no error", scope, sum[:8], f.Ref, err)
	}
}

// sameProviderFile reports whether a and b are one entry, times compared
// as instants.
func sameProviderFile(a, b keel.ProviderFile) bool {
	return a.Ref == b.Ref && a.MediaType == b.MediaType && a.ExpiresAt.Equal(b.ExpiresAt)
}

// testProviderFiles checks saving (an upsert, the media type normalized),
// looking up by scope and digest (an expired entry too: the caller judges
// expiry), that scopes never share an entry, and forgetting.
func testProviderFiles(t *testing.T, s memory.Store) {
	pf := capability[memory.ProviderFiles](t, s)
	ctx := context.Background()
	if _, ok := mustProviderFile(t, pf, geminiScope, digestA); ok {
		t.Fatalf("Got(ProviderFile of an empty store) = found; want none")
	}
	gem := keel.ProviderFile{Ref: "https://generativelanguage.googleapis.com/v1beta/files/abc123",
		MediaType: "Application/PDF; x=y", ExpiresAt: at(48 * 3600)}
	mustSaveProviderFile(t, pf, geminiScope, digestA, gem)
	got, ok := mustProviderFile(t, pf, geminiScope, digestA)
	want := keel.ProviderFile{Ref: gem.Ref, MediaType: "application/pdf", ExpiresAt: gem.ExpiresAt}
	if !ok || !sameProviderFile(got, want) || got.ExpiresAt.Location() != time.UTC {
		t.Errorf("Got(ProviderFile) = %+v, %v; want %+v in UTC", got, ok, want)
	}
	if _, ok := mustProviderFile(t, pf, openaiScope, digestA); ok {
		t.Errorf("Got(the same digest under another scope) = found; want none: a reference is valid in its scope only")
	}
	if _, ok := mustProviderFile(t, pf, geminiScope, digestB); ok {
		t.Errorf("Got(another digest) = found; want none")
	}

	// Saving again replaces the entry: the file was uploaded again.
	again := keel.ProviderFile{Ref: "https://generativelanguage.googleapis.com/v1beta/files/def456", MediaType: "application/pdf", ExpiresAt: at(96 * 3600)}
	mustSaveProviderFile(t, pf, geminiScope, digestA, again)
	if got, _ := mustProviderFile(t, pf, geminiScope, digestA); !sameProviderFile(got, again) {
		t.Errorf("Got(ProviderFile after a second save) = %+v; want %+v", got, again)
	}

	// An entry whose expiry passed is still returned.
	old := keel.ProviderFile{Ref: "file-old", MediaType: "application/pdf", ExpiresAt: at(1)}
	mustSaveProviderFile(t, pf, openaiScope, digestB, old)
	if got, ok := mustProviderFile(t, pf, openaiScope, digestB); !ok || !sameProviderFile(got, old) || !got.Expired(at(2)) {
		t.Errorf("Got(an expired entry) = %+v, %v; want it, expired at at(2)", got, ok)
	}

	if gone, err := pf.ForgetProviderFile(ctx, geminiScope, digestA); err != nil || !gone {
		t.Fatalf("ForgetProviderFile() = %v, %v; want true", gone, err)
	}
	if gone, err := pf.ForgetProviderFile(ctx, geminiScope, digestA); err != nil || gone {
		t.Errorf("ForgetProviderFile(again) = %v, %v; want false: nothing left", gone, err)
	}
	if _, ok := mustProviderFile(t, pf, geminiScope, digestA); ok {
		t.Errorf("Got(a forgotten entry) = found; want none")
	}
	if _, ok := mustProviderFile(t, pf, openaiScope, digestB); !ok {
		t.Errorf("Got(another scope's entry after a forget) = none; want it kept")
	}
}

// testProviderFileInvalid checks that bad input is refused, typed, and
// nothing is stored.
func testProviderFileInvalid(t *testing.T, s memory.Store) {
	pf := capability[memory.ProviderFiles](t, s)
	ctx := context.Background()
	good := keel.ProviderFile{Ref: "file-abc", MediaType: "application/pdf", ExpiresAt: at(3600)}
	tests := []struct {
		name, scope, sum string
		f                keel.ProviderFile
	}{
		{"empty scope", "", digestA, good},
		{"scope too long", strings.Repeat("s", memory.MaxFileScope+1), digestA, good},
		{"scope not UTF-8", "openai \xff", digestA, good},
		{"scope with NUL", "openai\x00x", digestA, good},
		{"digest too short", openaiScope, "abc", good},
		{"digest upper-case", openaiScope, strings.ToUpper(digestA), good},
		{"digest not hex", openaiScope, strings.Repeat("zz", 32), good},
		{"empty reference", openaiScope, digestA, keel.ProviderFile{MediaType: "application/pdf", ExpiresAt: at(1)}},
		{"reference with a line break", openaiScope, digestA, keel.ProviderFile{Ref: "file-a\r\nX: y", ExpiresAt: at(1)}},
		{"reference too long", openaiScope, digestA, keel.ProviderFile{Ref: strings.Repeat("r", memory.MaxFileRef+1), ExpiresAt: at(1)}},
		{"no expiry", openaiScope, digestA, keel.ProviderFile{Ref: "file-abc"}},
		{"media type too long", openaiScope, digestA, keel.ProviderFile{Ref: "file-abc", MediaType: "a/" + strings.Repeat("b", 300), ExpiresAt: at(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := pf.SaveProviderFile(ctx, tt.scope, tt.sum, tt.f); !errors.Is(err, memory.ErrInvalid) {
				t.Errorf("SaveProviderFile() = %v; want an error wrapping ErrInvalid", err)
			}
		})
	}
	for _, key := range [][2]string{{"", digestA}, {openaiScope, "x"}} {
		if _, _, err := pf.ProviderFile(ctx, key[0], key[1]); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("ProviderFile(%q, %q) = %v; want ErrInvalid", key[0], key[1], err)
		}
		if _, err := pf.ForgetProviderFile(ctx, key[0], key[1]); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("ForgetProviderFile(%q, %q) = %v; want ErrInvalid", key[0], key[1], err)
		}
	}
	if _, ok := mustProviderFile(t, pf, openaiScope, digestA); ok {
		t.Errorf("Got(ProviderFile after refused saves) = found; want nothing stored")
	}
}

// testSharedProviderFiles has one store value save and forget a
// reference, and the other see each change at once.
func testSharedProviderFiles(t *testing.T, a, b memory.Store) {
	pa, pb := capability[memory.ProviderFiles](t, a), capability[memory.ProviderFiles](t, b)
	f := keel.ProviderFile{Ref: "file_011abc", MediaType: "application/pdf", ExpiresAt: at(30 * 24 * 3600)}
	mustSaveProviderFile(t, pa, geminiScope, digestA, f)
	if got, ok := mustProviderFile(t, pb, geminiScope, digestA); !ok || !sameProviderFile(got, f) {
		t.Errorf("Got(b.ProviderFile() after a saved it) = %+v, %v; want %+v", got, ok, f)
	}
	if gone, err := pb.ForgetProviderFile(context.Background(), geminiScope, digestA); err != nil || !gone {
		t.Fatalf("b.ForgetProviderFile() = %v, %v; want true", gone, err)
	}
	if _, ok := mustProviderFile(t, pa, geminiScope, digestA); ok {
		t.Errorf("Got(a.ProviderFile() after b forgot it) = found; want none")
	}
}
