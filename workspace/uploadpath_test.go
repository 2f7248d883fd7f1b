package workspace_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/keel-go/keel/workspace"
)

var safeDirRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$`)

func TestUploadDir(t *testing.T) {
	tests := []struct {
		name, thread, resource, want string
	}{
		{"thread", "thread-1", "user-7", "thread-1"},
		{"resource without thread", "", "user-7", "user-7"},
		{"neither", "", "", "shared"},
		{"shell command", "t1; rm -rf /", "", "t1_rm_-rf"},
		{"command substitution", "$(touch pwned)", "", "touch_pwned"},
		{"backquotes", "`id`", "", "id"},
		{"quotes and pipes", `a'b"c|d&e>f`, "", "a_b_c_d_e_f"},
		{"climbing", "../../etc", "", "etc"},
		{"dot dot", "..", "", "id-5ec1f7e700f37c3d"},
		{"dot", ".", "", "id-cdb4ee2aea69cc6a"},
		{"dot runs", "a...b..c", "", "a_b_c"},
		{"single dots kept", "thread.v2.1", "", "thread.v2.1"},
		{"slashes", `a/b\c`, "", "a_b_c"},
		{"accents", "Ünïcödé", "", "Unicode"},
		{"combining accent", "e\u0301te\u0301", "", "ete"},
		{"compatibility forms", "ＡＢＣ-ﬁle", "", "ABC-file"},
		{"letter without decomposition", "Straße", "", "Stra_e"},
		{"only non-Latin", "日本語", "", "id-77710aedc74ecfa3"},
		{"underscore runs", "a___b  c", "", "a_b_c"},
		{"edges trimmed", "-_.x._-", "", "x"},
		{"newline", "t1\nt2", "", "t1_t2"},
		{"blank thread does not fall back", "   ", "user-7", "id-0aad7da77d2ed59c"},
		{"thread that sanitises to nothing", "...", "user-7", "id-ab5df625bc76dbd4"},
		{"hostile resource", "", "../user 7", "user_7"},
		{"300 characters", strings.Repeat("a", 300), "", strings.Repeat("a", 100)},
		{"cut leaves no edge", strings.Repeat("a", 99) + "-" + strings.Repeat("b", 200), "", strings.Repeat("a", 99)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := workspace.UploadDir(tt.thread, tt.resource)
			if got != tt.want {
				t.Errorf("Got(UploadDir(%q, %q)) = %q; want %q", tt.thread, tt.resource, got, tt.want)
			}
			if !safeDirRe.MatchString(got) {
				t.Errorf("Got(UploadDir(%q, %q)) = %q; want a match of %s", tt.thread, tt.resource, got, safeDirRe)
			}
		})
	}
}

func TestSafeDir(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "shared"},
		{"thread-1", "thread-1"},
		{"Ünïcödé thread", "Unicode_thread"},
		{"..", "id-5ec1f7e700f37c3d"},
		{"a..b", "a_b"},
		{"a._.b", "a._.b"},
		{"x/../../y", "x_y"},
		{"\x00\x1b[31m", "31m"},
		{"\xff\xfe", "id-b3d510ef04275ca8"},
	}
	for _, tt := range tests {
		if got := workspace.SafeDir(tt.in); got != tt.want {
			t.Errorf("Got(SafeDir(%q)) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestExtension(t *testing.T) {
	tests := []struct {
		name, filename, mediaType, want string
	}{
		{"simple", "leads.xlsx", "application/octet-stream", "xlsx"},
		{"upper case", "Report.PDF", "", "pdf"},
		{"last dot wins", "archive.tar.gz", "", "gz"},
		{"leading dot only", ".bashrc", "text/plain", ""},
		{"trailing dot", "file.", "text/plain", ""},
		{"named without extension ignores type", "README", "text/plain", ""},
		{"dot in directory only", "dir.d/README", "", ""},
		{"windows path", `C:\Users\ada\notes.Md`, "", "md"},
		{"trailing slash", "a.b/", "", ""},
		{"punctuation dropped", "x.t!x@t", "", "txt"},
		{"command substitution", "pwn.$(id)", "", "id"},
		{"non-ASCII dropped", "x.日本", "", ""},
		{"accented letter dropped", "x.ÉXT", "", "xt"},
		{"cut to 16", "x.abcdefghijklmnopqrstuvwxyz", "", "abcdefghijklmnop"},
		{"unnamed, no type", "", "", ""},
		{"unnamed, unknown type", "", "application/octet-stream", ""},
		{"unnamed, parameters and case", "", "Text/CSV; charset=utf-8", "csv"},
		{"unnamed json", "", "application/json", "json"},
		{"unnamed pdf", "", "application/pdf", "pdf"},
		{"unnamed xlsx", "", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"},
		{"unnamed docx", "", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
		{"unnamed zip", "", "application/zip", "zip"},
		{"unnamed mp3", "", "audio/mpeg", "mp3"},
		{"unnamed wav", "", "audio/wav", "wav"},
		{"unnamed gif", "", "image/gif", "gif"},
		{"unnamed jpg", "", "image/jpeg", "jpg"},
		{"unnamed png", "", "image/png", "png"},
		{"unnamed svg", "", "image/svg+xml", "svg"},
		{"unnamed webp", "", "image/webp", "webp"},
		{"unnamed csv", "", "text/csv", "csv"},
		{"unnamed html", "", "text/html", "html"},
		{"unnamed md", "", "text/markdown", "md"},
		{"unnamed txt", "", "text/plain", "txt"},
		{"unnamed mp4", "", "video/mp4", "mp4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := workspace.Extension(tt.filename, tt.mediaType); got != tt.want {
				t.Errorf("Got(Extension(%q, %q)) = %q; want %q", tt.filename, tt.mediaType, got, tt.want)
			}
		})
	}
}
