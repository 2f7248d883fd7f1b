package anthropic

import (
	"regexp"
	"testing"

	"github.com/keel-go/keel/provider/internal/refusal"
	"github.com/keel-go/keel/provider/providertest"
)

// The wordings as regular expressions: what each hand scanner of
// wordings.go reads, kept to hold the scanners to it.
var (
	partPathRE = regexp.MustCompile(`messages\.(\d+)\.content\.(\d+)\.(image|document|pdf)\b`)
	fileGoneRE = regexp.MustCompile(`(?i)\bfile\b[^.]{0,80}\b(?:not found|does not exist|was deleted)|\bfile_[0-9a-z]+\b[^.]{0,40}\bnot found`)
)

// checkWordings fails t where a scanner of wordings.go and its regular
// expression read msg differently. The scanners read ASCII case-blind,
// where (?i) also folds a few non-ASCII letters (K, ſ) onto ASCII ones,
// so only ASCII messages are compared.
func checkWordings(t *testing.T, msg string) {
	for i := 0; i < len(msg); i++ {
		if msg[i] >= 0x80 {
			return
		}
	}
	var want [3]string
	if m := partPathRE.FindStringSubmatch(msg); m != nil {
		want = [3]string{m[1], m[2], m[3]}
	}
	if n, m, kind := partPath(msg); [3]string{n, m, kind} != want {
		t.Errorf("partPath(%q) = %q, %q, %q; the pattern finds %q", msg, n, m, kind, want)
	}
	if got, want := saysFileGone(refusal.Lower(msg)), fileGoneRE.MatchString(msg); got != want {
		t.Errorf("saysFileGone(%q) = %v; the pattern finds %v", msg, got, want)
	}
}

// wordingSeeds are the real answers and near misses of each wording.
var wordingSeeds = []string{
	"messages.0.content.1.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
	"messages.12.content.30.document.source", "messages.1.content.2.pdf", "messages.1.content.2.pdfx", "messages..content.1.image",
	"messages.1.content.x.image messages.2.content.3.document", "messages.1.content.2.image_url", "Messages.1.content.2.image",
	"File not found: file_011CNha8iCJcU1wXNR6q4V8w", "file_011CNha8iCJcU1wXNR6q4V8w not found", "file_abc_d not found",
	"The file was deleted", "profile not found", "file. not found", "File file_x does not exist", "file_ not found",
}

func TestWordings(t *testing.T) {
	for _, msg := range wordingSeeds {
		checkWordings(t, msg)
	}
	for _, r := range providertest.AnthropicRefusals {
		checkWordings(t, r.Reply.Body)
	}
}

// FuzzWordings holds each hand scanner to the regular expression it
// reads, on any ASCII message.
func FuzzWordings(f *testing.F) {
	for _, msg := range wordingSeeds {
		f.Add(msg)
	}
	f.Fuzz(checkWordings)
}
