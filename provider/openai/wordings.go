package openai

import (
	"strings"

	"github.com/keel-go/keel/provider/internal/refusal"
)

// The wordings of the answers classify reads, each found by hand in the
// lower-case message (refusal.Lower): the comment over each function
// gives the regular expression it reads, and the offsets it returns are
// those of the same text in the message as sent.

// unsupportedMIME finds OpenAI's 400 for a file it does not read, "...
// but got unsupported MIME type 'application/vnd...sheet'.", and returns
// where the media type is, or -1, -1:
//
//	unsupported (?:mime|media|content|file) type:?\s*'?"?([a-z0-9][\w.+-]*/[\w.+-]+)
func unsupportedMIME(l string) (int, int) {
	for i := range refusal.Each(l, "unsupported ") {
		i += len("unsupported ")
		w := refusal.Prefix(l, i, "mime type", "media type", "content type", "file type")
		if w == "" {
			continue
		}
		i += len(w)
		if i < len(l) && l[i] == ':' {
			i++
		}
		i = refusal.SkipSpaces(l, i)
		if i < len(l) && l[i] == '\'' {
			i++
		}
		if i < len(l) && l[i] == '"' {
			i++
		}
		if j := mediaTypeAt(l, i); j > i {
			return i, j
		}
	}
	return -1, -1
}

// mediaTypeAt returns where a media type starting at l[i] ends, or i
// when none starts there: [a-z0-9][\w.+-]*/[\w.+-]+.
func mediaTypeAt(l string, i int) int {
	if i >= len(l) || !(isLowerAlpha(l[i]) || '0' <= l[i] && l[i] <= '9') {
		return i
	}
	j := i + 1
	for j < len(l) && isTypeByte(l[j]) {
		j++
	}
	if j >= len(l) || l[j] != '/' {
		return i
	}
	k := j + 1
	for k < len(l) && isTypeByte(l[k]) {
		k++
	}
	if k == j+1 {
		return i
	}
	return k
}

// isTypeByte reports a byte of a media type's parts: [\w.+-].
func isTypeByte(c byte) bool { return refusal.IsWord(c) || c == '.' || c == '+' || c == '-' }

func isLowerAlpha(c byte) bool { return 'a' <= c && c <= 'z' }

// notSupportedType finds Mistral's "Invalid document type. image/png is
// not supported." and returns where the media type is, or -1, -1:
//
//	\b([a-z]+/[a-z0-9][\w.+-]*) (?:is|are) not supported
func notSupportedType(l string) (int, int) {
	for at := 0; ; {
		j := indexEither(l, at, " is not supported", " are not supported")
		if j < 0 {
			return -1, -1
		}
		at = j + 1
		// The media type ends at j: its subtype has no '/', so its '/'
		// is the last one before j, and its type is the letters before.
		k := j
		for k > 0 && isTypeByte(l[k-1]) {
			k--
		}
		slash := strings.LastIndexByte(l[:j], '/')
		if slash < 0 || slash < k-1 || slash+1 >= j || !(isLowerAlpha(l[slash+1]) || '0' <= l[slash+1] && l[slash+1] <= '9') {
			continue
		}
		s := slash
		for s > 0 && isLowerAlpha(l[s-1]) {
			s--
		}
		if s == slash || s > 0 && refusal.IsWord(l[s-1]) {
			continue
		}
		return s, j
	}
}

// indexEither returns the first offset at or after at where l holds a or
// b, or -1.
func indexEither(l string, at int, a, b string) int {
	i, j := strings.Index(l[at:], a), strings.Index(l[at:], b)
	switch {
	case i < 0 && j < 0:
		return -1
	case i < 0 || j >= 0 && j < i:
		return at + j
	}
	return at + i
}

// partType finds vLLM's "Unknown part type: file" and llama.cpp's
// "Unsupported content part type: \"image_url\"", and returns where the
// wire type is, or -1, -1:
//
//	(?:unknown|unsupported|invalid)\s+(?:content\s+)?part\s+type:?\s*\\?["']?([a-z_]+)
func partType(l string) (int, int) {
	for p := range refusal.Each(l, "part") {
		if !saysUnknownBefore(l, p) {
			continue
		}
		i := p + len("part")
		k := refusal.SkipSpaces(l, i)
		if k == i || refusal.Prefix(l, k, "type") == "" {
			continue
		}
		i = k + len("type")
		if i < len(l) && l[i] == ':' {
			i++
		}
		i = refusal.SkipSpaces(l, i)
		if i < len(l) && l[i] == '\\' {
			i++
		}
		if i < len(l) && (l[i] == '"' || l[i] == '\'') {
			i++
		}
		j := i
		for j < len(l) && (isLowerAlpha(l[j]) || l[j] == '_') {
			j++
		}
		if j > i {
			return i, j
		}
	}
	return -1, -1
}

// saysUnknownBefore reports whether "part" at l[p] follows "unknown",
// "unsupported" or "invalid", and spaces, with "content" and spaces
// between or not.
func saysUnknownBefore(l string, p int) bool {
	k := refusal.SpacesBefore(l, p)
	if k == p {
		return false
	}
	if refusal.Suffix(l, k, "unknown", "unsupported", "invalid") != "" {
		return true
	}
	if refusal.Suffix(l, k, "content") == "" {
		return false
	}
	c := k - len("content")
	k = refusal.SpacesBefore(l, c)
	return k < c && refusal.Suffix(l, k, "unknown", "unsupported", "invalid") != ""
}

// inputKinds are the kinds of input a message can say are not taken.
var inputKinds = []string{"image", "vision", "audio", "file", "pdf", "document"}

// inputKind finds the kind of input a message says is not taken: "image
// input" (Ollama's "missing data required for image input", OpenRouter's
// "No endpoints found that support image input", llama.cpp's "image
// input is not supported"), "audio input", "file input", "PDF input". It
// returns the kind of the last such words in the message (where they
// usually end it), or "":
//
//	\b(image|vision|audio|file|pdf|document)s?\s+(?:input|inputs|content)\b
func inputKind(l string) string {
	for end := len(l); end > 0; {
		i, j := strings.LastIndex(l[:end], "input"), strings.LastIndex(l[:end], "content")
		w := "input"
		if j > i {
			i, w = j, "content"
		}
		if i < 0 {
			return ""
		}
		end = i
		e := i + len(w)
		if w == "input" && e < len(l) && l[e] == 's' && !refusal.EndsWord(l, e) {
			e++
		}
		if !refusal.EndsWord(l, e) {
			continue
		}
		k := refusal.SpacesBefore(l, i)
		if k == i {
			continue
		}
		kind := refusal.Suffix(l, k, inputKinds...)
		if kind == "" && k > 0 && l[k-1] == 's' {
			k--
			kind = refusal.Suffix(l, k, inputKinds...)
		}
		if kind != "" && refusal.StartsWord(l, k-len(kind)) {
			return kind
		}
	}
	return ""
}

// mustBeString finds Groq's answer to a user message whose content is a
// list: "('messages.1.content' : value must be a string)":
//
//	content'?\s*:\s*value must be a string
func mustBeString(l string) bool {
	for i := range refusal.Each(l, "value must be a string") {
		k := refusal.SpacesBefore(l, i)
		if k == 0 || l[k-1] != ':' {
			continue
		}
		k = refusal.SpacesBefore(l, k-1)
		if k > 0 && l[k-1] == '\'' && refusal.Suffix(l, k-1, "content") != "" || refusal.Suffix(l, k, "content") != "" {
			return true
		}
	}
	return false
}

// modelMissing finds an unknown model in a 400, as some servers answer
// it ("The model `x` does not exist", Ollama's "model \"x\" not found,
// try pulling it first"):
//
//	model\b.{0,120}\b(?:does not exist|not found|is not available|unknown)|(?:unknown|invalid) model\b
func modelMissing(l string) bool {
	for i := range refusal.Each(l, "model") {
		e := i + len("model")
		if !refusal.EndsWord(l, e) {
			continue
		}
		if refusal.Suffix(l, i, "unknown ", "invalid ") != "" ||
			refusal.PhraseAfter(l, e, 120, notNewline, "does not exist", "not found", "is not available", "unknown") {
			return true
		}
	}
	return false
}

func notNewline(c byte) bool { return c != '\n' }

// saysFileGone finds a file the request named by ID that the Files API no
// longer keeps (expired or deleted): "No such File object:
// file-abc123", "File file-abc123 not found":
//
//	no such file object|\bfile[\w -]{0,60}\b(?:not found|does not exist|has expired|was deleted)|invalid file id
func saysFileGone(l string) bool {
	if strings.Contains(l, "no such file object") || strings.Contains(l, "invalid file id") {
		return true
	}
	for i := range refusal.Each(l, "file") {
		if refusal.StartsWord(l, i) &&
			refusal.PhraseAfter(l, i+len("file"), 60, isIDByte, "not found", "does not exist", "has expired", "was deleted") {
			return true
		}
	}
	return false
}

// isIDByte reports a byte of a file's name or ID in a message: [\w -].
func isIDByte(c byte) bool { return refusal.IsWord(c) || c == ' ' || c == '-' }
