package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/memory"
)

// refusal is an entry learned at at(sec), for a day.
func refusal(provider, model, mediaType string, sec int) memory.Refusal {
	return memory.Refusal{Provider: provider, Model: model, MediaType: mediaType,
		LearnedAt: at(sec), ExpiresAt: at(sec).Add(24 * time.Hour), Status: 400, Reason: "Unsupported MIME type: " + mediaType}
}

func mustRecord(t *testing.T, l memory.RefusalLedger, rs ...memory.Refusal) {
	t.Helper()
	for _, r := range rs {
		if err := l.RecordRefusal(context.Background(), r); err != nil {
			t.Fatalf("RecordRefusal(%s %s %s) = %v; want no error", r.Provider, r.Model, r.MediaType, err)
		}
	}
}

// keys lists the entries as provider/model/type.
func keys(rs []memory.Refusal) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s/%s/%s", r.Provider, r.Model, r.MediaType)
	}
	return b.String()
}

// sameRefusal reports whether a and b are one entry, times compared as
// instants.
func sameRefusal(a, b memory.Refusal) bool {
	return a.Key() == b.Key() && a.LearnedAt.Equal(b.LearnedAt) && a.ExpiresAt.Equal(b.ExpiresAt) &&
		a.Status == b.Status && a.Reason == b.Reason
}

func mustRefusals(t *testing.T, l memory.RefusalLedger, provider, model string, now time.Time) []memory.Refusal {
	t.Helper()
	rs, err := l.Refusals(context.Background(), provider, model, now)
	if err != nil || rs == nil {
		t.Fatalf("Refusals(%s, %s) = %v, %v; want a list and no error", provider, model, rs, err)
	}
	return rs
}

func mustListRefusals(t *testing.T, l memory.RefusalLedger) []memory.Refusal {
	t.Helper()
	rs, err := l.ListRefusals(context.Background())
	if err != nil || rs == nil {
		t.Fatalf("ListRefusals() = %v, %v; want a list and no error", rs, err)
	}
	return rs
}

// testRefusals checks recording (an upsert, media types normalized),
// looking up one model's entries, listing them all, and forgetting one,
// a model's, a provider's and every entry.
func testRefusals(t *testing.T, s memory.Store) {
	l := capability[memory.RefusalLedger](t, s)
	ctx := context.Background()
	xlsx := "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	mustRecord(t, l,
		refusal("google", "gemini-2.5-flash", xlsx, 0),
		refusal("google", "gemini-2.5-flash", "Application/MSWord; charset=binary", 1),
		refusal("google", "gemini-2.5-pro", xlsx, 2),
		refusal("openai", "gpt-4.1", "application/zip", 3))
	now := at(10)
	got := mustRefusals(t, l, "google", "gemini-2.5-flash", now)
	if want := "google/gemini-2.5-flash/application/msword google/gemini-2.5-flash/" + xlsx; keys(got) != want {
		t.Errorf("Got(Refusals(gemini-2.5-flash)) = %s; want %s", keys(got), want)
	}
	want := refusal("google", "gemini-2.5-flash", "application/msword", 1)
	want.Reason = "Unsupported MIME type: Application/MSWord; charset=binary"
	if len(got) > 0 && !sameRefusal(got[0], want) {
		t.Errorf("Got(Refusals() entry) = %+v; want %+v", got[0], want)
	}
	if rs := mustRefusals(t, l, "google", "gemini-3", now); len(rs) != 0 {
		t.Errorf("Got(Refusals(unknown model)) = %s; want none", keys(rs))
	}

	// Recording an entry again replaces it.
	again := memory.Refusal{Provider: "google", Model: "gemini-2.5-flash", MediaType: xlsx,
		LearnedAt: at(5), ExpiresAt: at(5).Add(time.Hour), Status: 0, Reason: "refused by the SDK before sending"}
	mustRecord(t, l, again)
	got = mustRefusals(t, l, "google", "gemini-2.5-flash", now)
	if len(got) != 2 || !sameRefusal(got[1], again) {
		t.Errorf("Got(Refusals() after recording again) = %+v; want the new entry %+v", got, again)
	}
	if all := mustListRefusals(t, l); keys(all) != "google/gemini-2.5-flash/application/msword google/gemini-2.5-flash/"+xlsx+
		" google/gemini-2.5-pro/"+xlsx+" openai/gpt-4.1/application/zip" {
		t.Errorf("Got(ListRefusals()) = %s; want the four entries in order", keys(all))
	}

	forget := []struct {
		key  memory.RefusalKey
		n    int
		left string
	}{
		{memory.RefusalKey{Provider: "google", Model: "gemini-2.5-flash", MediaType: "APPLICATION/MSWORD"}, 1,
			"google/gemini-2.5-flash/" + xlsx + " google/gemini-2.5-pro/" + xlsx + " openai/gpt-4.1/application/zip"},
		{memory.RefusalKey{Provider: "google", Model: "gemini-2.5-flash", MediaType: "image/png"}, 0,
			"google/gemini-2.5-flash/" + xlsx + " google/gemini-2.5-pro/" + xlsx + " openai/gpt-4.1/application/zip"},
		{memory.RefusalKey{Provider: "google", Model: "gemini-2.5-flash"}, 1,
			"google/gemini-2.5-pro/" + xlsx + " openai/gpt-4.1/application/zip"},
		{memory.RefusalKey{Provider: "google"}, 1, "openai/gpt-4.1/application/zip"},
		{memory.RefusalKey{}, 1, ""},
	}
	for _, f := range forget {
		n, err := l.ForgetRefusals(ctx, f.key)
		if err != nil || n != f.n {
			t.Errorf("Got(ForgetRefusals(%+v)) = %d, %v; want %d", f.key, n, err, f.n)
		}
		if left := keys(mustListRefusals(t, l)); left != f.left {
			t.Errorf("Got(ListRefusals() after ForgetRefusals(%+v)) = %s; want %s", f.key, left, f.left)
		}
	}
}

// testRefusalExpiry checks that an entry counts until its ExpiresAt and
// not from then on, stays listed (and marked) once expired, and counts
// again when recorded again. Time is the caller's: no waiting.
func testRefusalExpiry(t *testing.T, s memory.Store) {
	l := capability[memory.RefusalLedger](t, s)
	r := refusal("anthropic", "claude-sonnet-4", "application/zip", 0)
	r.ExpiresAt = r.LearnedAt.Add(1500 * time.Millisecond)
	mustRecord(t, l, r)
	for _, c := range []struct {
		after time.Duration
		want  int
	}{{0, 1}, {1499 * time.Millisecond, 1}, {1500 * time.Millisecond, 0}, {time.Hour, 0}} {
		now := r.LearnedAt.Add(c.after)
		if got := mustRefusals(t, l, "anthropic", "claude-sonnet-4", now); len(got) != c.want {
			t.Errorf("Got(Refusals() %v after learning, expiring after 1.5s) = %d entries; want %d", c.after, len(got), c.want)
		}
	}
	later := r.LearnedAt.Add(time.Hour)
	all := mustListRefusals(t, l)
	if len(all) != 1 || !all[0].Expired(later) || all[0].Expired(r.LearnedAt) {
		t.Errorf("Got(ListRefusals() an hour on) = %+v; want the one entry, expired then and not when learned", all)
	}
	r.LearnedAt, r.ExpiresAt = later, later.Add(time.Minute)
	mustRecord(t, l, r)
	if got := mustRefusals(t, l, "anthropic", "claude-sonnet-4", later); len(got) != 1 || !got[0].LearnedAt.Equal(later) {
		t.Errorf("Got(Refusals() after recording again) = %+v; want the entry learned at %v", got, later)
	}
}

// testRefusalInvalid checks that bad entries and keys are refused with
// ErrInvalid and change nothing.
func testRefusalInvalid(t *testing.T, s memory.Store) {
	l := capability[memory.RefusalLedger](t, s)
	ctx := context.Background()
	good := refusal("google", "gemini-2.5-flash", "application/zip", 0)
	mustRecord(t, l, good)
	bad := map[string]func(r *memory.Refusal){
		"no provider":        func(r *memory.Refusal) { r.Provider = "" },
		"no model":           func(r *memory.Refusal) { r.Model = "" },
		"no media type":      func(r *memory.Refusal) { r.MediaType = " ; charset=x" },
		"model not UTF-8":    func(r *memory.Refusal) { r.Model = "gemini\xff" },
		"NUL in reason":      func(r *memory.Refusal) { r.Reason = "a\x00b" },
		"long reason":        func(r *memory.Refusal) { r.Reason = strings.Repeat("x", memory.MaxRefusalReason+1) },
		"long model":         func(r *memory.Refusal) { r.Model = strings.Repeat("m", 257) },
		"no time learned":    func(r *memory.Refusal) { r.LearnedAt = time.Time{} },
		"expires as learned": func(r *memory.Refusal) { r.ExpiresAt = r.LearnedAt },
		"status 42":          func(r *memory.Refusal) { r.Status = 42 },
	}
	for name, change := range bad {
		r := good
		r.Reason = "changed"
		change(&r)
		err := l.RecordRefusal(ctx, r)
		wantErr(t, "RecordRefusal("+name+")", err, memory.ErrInvalid)
	}
	if all := mustListRefusals(t, l); len(all) != 1 || !sameRefusal(all[0], good) {
		t.Errorf("Got(ListRefusals() after refused records) = %+v; want only %+v", all, good)
	}
	for _, key := range []memory.RefusalKey{{Model: "gemini-2.5-flash"}, {Provider: "google", MediaType: "application/zip"}, {Provider: "g\x00"}} {
		_, err := l.ForgetRefusals(ctx, key)
		wantErr(t, fmt.Sprintf("ForgetRefusals(%+q)", key), err, memory.ErrInvalid)
	}
	for _, pm := range [][2]string{{"", "gemini-2.5-flash"}, {"google", ""}} {
		_, err := l.Refusals(ctx, pm[0], pm[1], at(1))
		wantErr(t, fmt.Sprintf("Refusals(%q, %q)", pm[0], pm[1]), err, memory.ErrInvalid)
	}
	if all := mustListRefusals(t, l); len(all) != 1 {
		t.Errorf("Got(ListRefusals() after refused forgets) = %d entries; want 1", len(all))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	wantErr(t, "RecordRefusal(cancelled)", l.RecordRefusal(cctx, refusal("google", "x", "application/zip", 0)), context.Canceled)
	_, err := l.Refusals(cctx, "google", "gemini-2.5-flash", at(1))
	wantErr(t, "Refusals(cancelled)", err, context.Canceled)
	_, err = l.ListRefusals(cctx)
	wantErr(t, "ListRefusals(cancelled)", err, context.Canceled)
	_, err = l.ForgetRefusals(cctx, memory.RefusalKey{})
	wantErr(t, "ForgetRefusals(cancelled)", err, context.Canceled)
	if all := mustListRefusals(t, l); len(all) != 1 {
		t.Errorf("Got(ListRefusals() after cancelled calls) = %d entries; want 1", len(all))
	}
}
