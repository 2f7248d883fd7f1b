package openai

import (
	"regexp"
	"testing"

	"github.com/keel-go/keel/provider/internal/refusal"
	"github.com/keel-go/keel/provider/providertest"
)

// The wordings as regular expressions: what each hand scanner of
// wordings.go reads, kept to hold the scanners to it.
var (
	unsupportedMIMERE  = regexp.MustCompile(`(?i)unsupported (?:MIME|media|content|file) type:?\s*'?"?([a-z0-9][\w.+-]*/[\w.+-]+)`)
	notSupportedTypeRE = regexp.MustCompile(`(?i)\b([a-z]+/[a-z0-9][\w.+-]*) (?:is|are) not supported`)
	partTypeRE         = regexp.MustCompile(`(?i)(?:unknown|unsupported|invalid)\s+(?:content\s+)?part\s+type:?\s*\\?["']?([a-z_]+)`)
	inputKindRE        = regexp.MustCompile(`(?i)\b(image|vision|audio|file|pdf|document)s?\s+(?:input|inputs|content)\b`)
	mustBeStringRE     = regexp.MustCompile(`(?i)content'?\s*:\s*value must be a string`)
	modelMissingRE     = regexp.MustCompile(`(?i)model\b.{0,120}\b(?:does not exist|not found|is not available|unknown)|(?:unknown|invalid) model\b`)
	fileGoneRE         = regexp.MustCompile(`(?i)no such file object|\bfile[\w -]{0,60}\b(?:not found|does not exist|has expired|was deleted)|invalid file id`)
)

// groupAt returns where a pattern's first group is in its leftmost match
// in s, or -1, -1.
func groupAt(re *regexp.Regexp, s string) (int, int) {
	if m := re.FindStringSubmatchIndex(s); m != nil {
		return m[2], m[3]
	}
	return -1, -1
}

// lastKind is inputKindRE's kind in its last match in s, lower case, or "".
func lastKind(s string) string {
	all := inputKindRE.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return ""
	}
	return refusal.Lower(all[len(all)-1][1])
}

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
	l := refusal.Lower(msg)
	type pair struct{ i, j int }
	for _, c := range []struct {
		name      string
		got, want pair
	}{
		{"unsupportedMIME", pairOf(unsupportedMIME(l)), pairOf(groupAt(unsupportedMIMERE, msg))},
		{"notSupportedType", pairOf(notSupportedType(l)), pairOf(groupAt(notSupportedTypeRE, msg))},
		{"partType", pairOf(partType(l)), pairOf(groupAt(partTypeRE, msg))},
	} {
		if c.got != c.want {
			t.Errorf("%s(%q) = %v; the pattern finds %v", c.name, msg, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"inputKind", inputKind(l), lastKind(msg)},
		{"mustBeString", mustBeString(l), mustBeStringRE.MatchString(msg)},
		{"modelMissing", modelMissing(l), modelMissingRE.MatchString(msg)},
		{"saysFileGone", saysFileGone(l), fileGoneRE.MatchString(msg)},
	} {
		if c.got != c.want {
			t.Errorf("%s(%q) = %v; the pattern finds %v", c.name, msg, c.got, c.want)
		}
	}
}

func pairOf(i, j int) struct{ i, j int } { return struct{ i, j int }{i, j} }

// wordingSeeds are the real answers and near misses of each wording.
var wordingSeeds = []string{
	"Invalid file data: 'messages[1].content[0].file.file_data'. Expected a base64-encoded data URL with an application/pdf MIME type, but got unsupported MIME type 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'.",
	`unsupported media type: "image/heic"`, "Unsupported file type:  '\"x/y", "unsupported content type 'x/'", "unsupported MIME type '-a/b'",
	"Invalid document type. image/png is not supported.", "types image/png and Image/WEBP are not supported", "x9image/png is not supported",
	"a/b/c is not supported", "/png is not supported", "image/ is not supported", "image/_x is not supported",
	"Unknown part type: file", `Failed to parse messages: Unsupported content part type: \"image_url\"`, "invalid   content\tpart  type:'input_audio'",
	"unknownpart type: x", "unknown content  part type", "unknown part typeinput_file", "unsupported contentpart type: x",
	"Failed to create new sequence: failed to process inputs: this model is missing data required for image input",
	"No endpoints found that support image input", "image input is not supported; pdf inputs neither", "files content", "ximage input",
	"Audios input", "vision  inputs", "document inputsx", "image inputs.", "imagess input",
	"'messages.1' : for 'role:user' the following must be satisfied[('messages.1.content' : value must be a string)]",
	"content':value must be a string", "content ' : value must be a string", "contents: value must be a string",
	`model "llama9" not found, try pulling it first`, "The model `gpt-9` does not exist or you do not have access to it.",
	"unknown model", "Invalid model_name", "remodel is unknown", "model\nnot found", "models not found", "model_x not found",
	"No such File object: file-abc123", "File file-abc123 not found", "file-abc123 has expired", "profile not found",
	"file a.b not found", "Invalid file ID", "file " + string(make([]byte, 61)) + "not found",
}

func TestWordings(t *testing.T) {
	for _, msg := range wordingSeeds {
		checkWordings(t, msg)
	}
	for _, r := range providertest.OpenAICompatibleRefusals {
		_, _, msg := parseErrorBody(r.Reply.Body)
		checkWordings(t, msg)
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
