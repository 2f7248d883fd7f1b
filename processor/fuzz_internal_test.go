package processor

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keel-go/keel"
)

// FuzzDisplayName checks the display-name rules on any name and media
// type: the result is valid UTF-8, one line with no control character or
// escape, at most 200 characters, never empty, stable when cleaned again,
// and a note built on it keeps its lines.
func FuzzDisplayName(f *testing.F) {
	for _, s := range [][2]string{
		{"leads.xlsx", ""}, {"", "text/csv"}, {"", ""}, {"\x1b[31mred\x1b[0m.txt", ""}, {"a\nb\r\x00.pdf", ""},
		{"\x1b]0;title\x07x", ""}, {"\u009b31mx", ""}, {"\xff\xfe", ""}, {strings.Repeat("é", 300), ""}, {"\x1b", "\x1b["},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, mediaType string) {
		got := displayName(name, mediaType)
		switch {
		case got == "":
			t.Fatalf("Got(displayName(%q, %q)) = \"\"; want a name", name, mediaType)
		case !utf8.ValidString(got):
			t.Fatalf("Got(displayName(%q, %q)) = %q; want valid UTF-8", name, mediaType, got)
		case utf8.RuneCountInString(got) > maxDisplayName:
			t.Fatalf("Got(displayName(%q, %q)) = %d characters; want at most %d", name, mediaType, utf8.RuneCountInString(got), maxDisplayName)
		case strings.ContainsFunc(got, func(r rune) bool { return r <= 0x1f || r >= 0x7f && r <= 0x9f }):
			t.Fatalf("Got(displayName(%q, %q)) = %q; want no control character", name, mediaType, got)
		case displayName(got, "") != got:
			t.Fatalf("Got(displayName(displayName(%q, %q))) = %q; want %q unchanged", name, mediaType, displayName(got, ""), got)
		}
		if lines := strings.Split(uploadNote("uploads/t/x.csv", name, "text/csv", 1), "\n"); len(lines) != 5 {
			t.Fatalf("Got(uploadNote with name %q) = %d lines; want 5", name, len(lines))
		}
		if p := placeholder(name); strings.Contains(p, "\n") {
			t.Fatalf("Got(placeholder(%q)) = %q; want one line", name, p)
		}
	})
}

// FuzzClassifyRefusal checks the classification of a model's error on any
// statuses, faults and refusal text: a 401 or 403 anywhere in the chain,
// an answer typed as no file's fault, or a 404 that does not blame a file
// means no file is to blame; a provider answer taken as a refusal is never
// one that asks to retry later unless its adapter typed it a file's
// fault; a media type named in a refusal is normalised, as the files it
// is compared with are.
func FuzzClassifyRefusal(f *testing.F) {
	f.Add(400, 429, "file part media type text/csv", "", "text/csv", "")
	f.Add(415, 0, "", "Application/PDF; x=1", "", "file-size")
	f.Add(401, 400, "media type: image/heic", "", "", "file-type")
	f.Add(503, 404, "Media Type:  Text/Plain;charset=utf-8", "", "", "not-a-file")
	f.Add(422, 422, "media type text/csv.", "audio/wav", "video/mp4", "")
	f.Add(404, 400, "", "", "", "file-type")
	f.Fuzz(func(t *testing.T, outer, inner int, functionality, sdkType, apiType, fault string) {
		unsup := &keel.UnsupportedFunctionalityError{Functionality: functionality, MediaType: sdkType}
		outerErr := &keel.APICallError{StatusCode: outer, MediaType: apiType, Fault: keel.Fault(fault), Cause: unsup}
		err := errors.Join(outerErr, fmt.Errorf("wrapped: %w", &keel.APICallError{StatusCode: inner}))
		c := classifyRefusal(err)
		noFile := func(e *keel.APICallError) bool {
			f := faultOf(e)
			return f == keel.FaultNotFile || e.StatusCode == 401 || e.StatusCode == 403 || e.StatusCode == 404 && f != keel.FaultFileType
		}
		if want := noFile(outerErr) || noFile(&keel.APICallError{StatusCode: inner}); c.notAFile != want {
			t.Fatalf("Got(notAFile for statuses %d, %d, fault %q) = %v; want %v", outer, inner, fault, c.notAFile, want)
		}
		if c.http != nil && (asksToRetryLater(c.http.StatusCode) && c.http.Fault == "" || noFile(c.http)) {
			t.Fatalf("Got(refusing answer) status %d fault %q; want none that asks to retry later or blames no file", c.http.StatusCode, c.http.Fault)
		}
		for _, mt := range c.named {
			if mt == "" || keel.NormalizeMediaType(mt) != mt {
				t.Fatalf("Got(named refusal of %q / %q) = %q; want a normalised media type", functionality, sdkType, mt)
			}
		}
	})
}
