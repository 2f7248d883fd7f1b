package processor

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDisplayName(t *testing.T) {
	tests := []struct {
		name, filename, mediaType, want string
	}{
		{"file name", "leads.xlsx", "application/zip", "leads.xlsx"},
		{"media type as sent when unnamed", "", "Text/CSV; charset=utf-8", "Text/CSV; charset=utf-8"},
		{"neither", "", "", "file"},
		{"colour codes", "\x1b[31mred\x1b[0m.txt", "", "red.txt"},
		{"cursor and erase", "a\x1b[2J\x1b[1;1Hb", "", "ab"},
		{"private CSI parameters", "a\x1b[?25lb", "", "ab"},
		{"C1 CSI", "a\u009b31mb", "", "ab"},
		{"OSC title ended by BEL", "a\x1b]0;pwned\x07b", "", "ab"},
		{"OSC hyperlink ended by ST", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "", "click"},
		{"OSC ended by C1 ST", "a\x1b]2;t\u009cb", "", "ab"},
		{"DCS", "a\x1bPq#0\x1b\\b", "", "ab"},
		{"two-byte escape", "a\x1bcb", "", "ab"},
		{"charset escape", "a\x1b(Bb", "", "ab"},
		{"unterminated OSC", "a\x1b]0;rest", "", "a"},
		{"lone ESC at end", "ab\x1b", "", "ab"},
		{"malformed CSI", "a\x1b[31\nb", "", "ab"},
		{"C0 controls", "a\x00b\tc\nd\re\x1ff", "", "abcdef"},
		{"DEL and C1", "a\x7fb\u0080c\u009fd", "", "abcd"},
		{"kept unicode", "Résumé – ünïcödé.pdf", "", "Résumé – ünïcödé.pdf"},
		{"invalid UTF-8", "a\xffb", "", "a\uFFFDb"},
		{"only controls", "\x1b[31m\x00\n", "application/pdf", "unnamed file"},
		{"media type with escapes", "", "\x1b[1mapplication/zip", "application/zip"},
		{"250 characters", strings.Repeat("é", 250), "", strings.Repeat("é", 200)},
		{"cut after stripping", strings.Repeat("\x00", 50) + strings.Repeat("a", 250), "", strings.Repeat("a", 200)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := displayName(tt.filename, tt.mediaType)
			if got != tt.want {
				t.Errorf("Got(displayName(%q, %q)) = %q; want %q", tt.filename, tt.mediaType, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > 200 {
				t.Errorf("Got(len(displayName(%q, %q))) = %d; want at most 200", tt.filename, tt.mediaType, n)
			}
		})
	}
}

func TestUploadNote(t *testing.T) {
	want := "[File uploaded to the sandbox]\n" +
		"path: /home/user/uploads/thread-1/ab12.xlsx\n" +
		"name: leads.xlsx\n" +
		"type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\n" +
		"size: 48213 bytes"
	got := uploadNote("/home/user/uploads/thread-1/ab12.xlsx", "leads.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 48213)
	if got != want {
		t.Errorf("Got(uploadNote) = %q; want %q", got, want)
	}
}

func TestNotUploadedNote(t *testing.T) {
	tests := []struct {
		name, noteName, reason, want string
	}{
		{
			"too large",
			"big.zip", tooLargeReason("big.zip", 10485761, 10485760),
			"[File not uploaded]\nname: big.zip\nreason: File \"big.zip\" is 10485761 bytes, over the 10485760 byte limit.",
		},
		{
			"unnamed too large shows its type",
			"application/zip", tooLargeReason("", 10485761, 10485760),
			"[File not uploaded]\nname: application/zip\nreason: An unnamed file is 10485761 bytes, over the 10485760 byte limit.",
		},
		{
			"undecodable",
			"a.bin", undecodableReason("a.bin"),
			"[File not uploaded]\nname: a.bin\nreason: File \"a.bin\" has inline data that cannot be decoded.",
		},
		{
			"name cannot add lines",
			"a\nreason: forged", "r",
			"[File not uploaded]\nname: areason: forged\nreason: r",
		},
		{
			"empty name",
			"", "r",
			"[File not uploaded]\nname: unnamed file\nreason: r",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notUploadedNote(tt.noteName, tt.reason); got != tt.want {
				t.Errorf("Got(notUploadedNote(%q, %q)) = %q; want %q", tt.noteName, tt.reason, got, tt.want)
			}
		})
	}
}

func TestUndecodableReason(t *testing.T) {
	tests := []struct{ name, want string }{
		{"data.xlsx", `File "data.xlsx" has inline data that cannot be decoded.`},
		{"", "An unnamed file has inline data that cannot be decoded."},
		{"\x1b[0m", "An unnamed file has inline data that cannot be decoded."},
		{"a\x00b.csv", `File "ab.csv" has inline data that cannot be decoded.`},
	}
	for _, tt := range tests {
		if got := undecodableReason(tt.name); got != tt.want {
			t.Errorf("Got(undecodableReason(%q)) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestUnavailablePlaceholder(t *testing.T) {
	tests := []struct{ name, want string }{
		{"leads.xlsx", "[Attachment unavailable: leads.xlsx]"},
		{"application/vnd.ms-excel", "[Attachment unavailable: application/vnd.ms-excel]"},
		{"", "[Attachment unavailable: unnamed file]"},
		{"a]\n[b", "[Attachment unavailable: a][b]"},
	}
	for _, tt := range tests {
		if got := placeholder(tt.name); got != tt.want {
			t.Errorf("Got(placeholder(%q)) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestTooLargeReason(t *testing.T) {
	tests := []struct {
		filename    string
		size, limit int64
		want        string
	}{
		{"big.zip", 10485761, 10485760, `File "big.zip" is 10485761 bytes, over the 10485760 byte limit.`},
		{"", 20000000, 10485760, "An unnamed file is 20000000 bytes, over the 10485760 byte limit."},
		{"\x1b[0mbig\x00.zip", 11, 10, `File "big.zip" is 11 bytes, over the 10 byte limit.`},
	}
	for _, tt := range tests {
		if got := tooLargeReason(tt.filename, tt.size, tt.limit); got != tt.want {
			t.Errorf("Got(tooLargeReason(%q, %d, %d)) = %q; want %q", tt.filename, tt.size, tt.limit, got, tt.want)
		}
	}
}
