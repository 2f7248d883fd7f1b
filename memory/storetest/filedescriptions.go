package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel/memory"
)

// testFileDescriptions: a description is found by model and digest; the
// first written stays when two writers race; bad input stores nothing.
func testFileDescriptions(t *testing.T, s memory.Store) {
	d := capability[memory.FileDescriptions](t, s)
	ctx := context.Background()
	sum := strings.Repeat("ab", 32)
	if _, err := d.FileDescription(ctx, "google/gemini-2.5-flash", sum); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("Got(FileDescription before any) = %v; want ErrNotFound", err)
	}
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for i, text := range []string{"A red square. Text: none.", "A red square. Text: none!", "A red square."} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := d.RecordFileDescription(ctx, memory.FileDescription{Model: "google/gemini-2.5-flash", SHA256: sum, Text: text, CreatedAt: at.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Errorf("RecordFileDescription(%q) = %v", text, err)
			}
		}()
	}
	wg.Wait()
	got, err := d.FileDescription(ctx, "google/gemini-2.5-flash", sum)
	if err != nil || !strings.HasPrefix(got.Text, "A red square") || got.SHA256 != sum || got.Model != "google/gemini-2.5-flash" {
		t.Fatalf("Got(FileDescription) = %+v, %v; want one of the descriptions", got, err)
	}
	again, _ := d.FileDescription(ctx, "google/gemini-2.5-flash", sum)
	if again.Text != got.Text || !again.CreatedAt.Equal(got.CreatedAt) {
		t.Errorf("Got(FileDescription again) = %+v; want %+v: the first written stays", again, got)
	}
	if _, err := d.FileDescription(ctx, "openai/gpt-4o", sum); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Got(another model's description) = %v; want ErrNotFound", err)
	}
	for _, bad := range []memory.FileDescription{
		{Model: "", SHA256: sum, Text: "x"},
		{Model: "m", SHA256: "ABAB", Text: "x"},
		{Model: "m", SHA256: strings.Repeat("AB", 32), Text: "x"},
		{Model: "m", SHA256: sum, Text: "\xff"},
		{Model: "m", SHA256: sum, Text: strings.Repeat("a", memory.MaxFileDescription+1)},
	} {
		if err := d.RecordFileDescription(ctx, bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Got(RecordFileDescription(%.40q…)) = %v; want ErrInvalid", bad.Model+" "+bad.SHA256, err)
		}
	}
	if _, err := d.FileDescription(ctx, "m", sum); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Got(FileDescription after bad input) = %v; want nothing stored", err)
	}
}
