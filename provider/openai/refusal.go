package openai

import (
	"cmp"
	"net/http"
	"regexp"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/refusal"
)

// This file reads what an error answer says about the request's files,
// for OpenAI and for the OpenAI-compatible servers people run (vLLM,
// llama.cpp, Ollama, OpenRouter, Mistral, Groq, LM Studio), each in its
// own wording. Every wording here was seen in a real answer; a new one
// goes in the table of tests beside this file.

// fault is what an error answer says is wrong with the request.
type fault struct {
	kind      keel.Fault
	mediaType string
	class     string
	limit     int64
}

var (
	// unsupportedMIME: OpenAI's 400 for a file it does not read, "...
	// but got unsupported MIME type 'application/vnd...sheet'."
	unsupportedMIME = regexp.MustCompile(`(?i)unsupported (?:MIME|media|content|file) type:?\s*'?"?([a-z0-9][\w.+-]*/[\w.+-]+)`)
	// notSupportedType: Mistral's "Invalid document type. image/png is
	// not supported."
	notSupportedType = regexp.MustCompile(`(?i)\b([a-z]+/[a-z0-9][\w.+-]*) (?:is|are) not supported`)
	// partType: vLLM's "Unknown part type: file", llama.cpp's
	// "Unsupported content part type: \"image_url\"".
	partType = regexp.MustCompile(`(?i)(?:unknown|unsupported|invalid)\s+(?:content\s+)?part\s+type:?\s*\\?["']?([a-z_]+)`)
	// inputKindPattern: "image input" (Ollama's "missing data required for image
	// input", OpenRouter's "No endpoints found that support image input",
	// llama.cpp's "image input is not supported"), "audio input", "file
	// input", "PDF input".
	inputKindPattern = regexp.MustCompile(`(?i)\b(image|vision|audio|file|pdf|document)s?\s+(?:input|inputs|content)\b`)
	// mustBeString: Groq's answer to a user message whose content is a
	// list: "('messages.1.content' : value must be a string)".
	mustBeString = regexp.MustCompile(`(?i)content'?\s*:\s*value must be a string`)
	// notAFileCodes are the codes of answers no file causes.
	notAFileCodes = []string{"invalid_api_key", "insufficient_quota", "model_not_found", "account_deactivated",
		"billing_hard_limit_reached", "billing_not_active", "unsupported_country_region_territory", "rate_limit_exceeded",
		"invalid_organization", "organization_deactivated"}
	// modelMissing: an unknown model in a 400, as some servers answer it
	// ("The model `x` does not exist", Ollama's "model \"x\" not found,
	// try pulling it first").
	modelMissing = regexp.MustCompile(`(?i)model\b.{0,120}\b(?:does not exist|not found|is not available|unknown)|(?:unknown|invalid) model\b`)
	// fileGone: a file the request named by ID that the Files API no
	// longer keeps (expired or deleted): "No such File object:
	// file-abc123", "File file-abc123 not found".
	fileGone = regexp.MustCompile(`(?i)no such file object|\bfile[\w -]{0,60}\b(?:not found|does not exist|has expired|was deleted)|invalid file id`)
	// imageCodes are OpenAI's codes for an image it cannot read.
	imageCodes = []string{"invalid_image_format", "invalid_image", "image_parse_error", "unsupported_image"}
)

// classify reads an error answer's status, code and message. Each
// pattern runs only on a message holding the words it needs, which keeps
// an answer's classification to a few microseconds (BenchmarkClassify).
func classify(status int, code, msg string) fault {
	lc, lm := strings.ToLower(code), strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests:
		return fault{kind: keel.FaultNotFile}
	case containsAny(lc, notAFileCodes):
		return fault{kind: keel.FaultNotFile}
	case status < 500 && (lc == "file_not_found" || mentionsGoneFile(lm) && fileGone.MatchString(msg)):
		return fault{kind: keel.FaultFileGone}
	}
	if !strings.Contains(lm, "unsupported") || !strings.Contains(lm, "type") {
	} else if m := unsupportedMIME.FindStringSubmatch(refusal.From(msg, lm, "unsupported", 0)); m != nil {
		return fault{kind: keel.FaultFileType, mediaType: m[1]}
	}
	if !strings.Contains(lm, "not supported") || !strings.Contains(lm, "/") {
	} else if m := notSupportedType.FindStringSubmatch(refusal.From(msg, lm, "not supported", 100)); m != nil {
		return fault{kind: keel.FaultFileType, mediaType: m[1]}
	}
	if !strings.Contains(lm, "part") {
	} else if m := partType.FindStringSubmatch(refusal.From(msg, lm, "part", 30)); m != nil {
		if f, ok := partTypeFault(m[1]); ok {
			return f
		}
	}
	if containsAny(lc, imageCodes) {
		return fault{kind: keel.FaultFileType, class: "image/*"}
	}
	if refusal.SaysPages(msg) {
		return fault{kind: keel.FaultFilePages, mediaType: "application/pdf", limit: refusal.PageLimit(msg)}
	}
	if saysTooLarge(status, msg) {
		return fault{kind: keel.FaultFileSize, limit: refusal.SizeLimit(msg)}
	}
	if !strings.Contains(lm, "input") && !strings.Contains(lm, "content") || !saysUnsupported(msg) {
	} else if m := inputKind(msg, lm); m != nil {
		switch strings.ToLower(m[1]) {
		case "image", "vision":
			return fault{kind: keel.FaultFileType, class: "image/*"}
		case "audio":
			return fault{kind: keel.FaultFileType, class: "audio/*"}
		default:
			// Chat Completions sends only PDFs as files.
			return fault{kind: keel.FaultFileType, mediaType: "application/pdf"}
		}
	}
	if strings.Contains(lm, "must be a string") && mustBeString.MatchString(refusal.From(msg, lm, "must be a string", 40)) {
		// A server that takes text only: every file of the message is
		// refused, and the message without them goes as a string.
		return fault{kind: keel.FaultFileType, class: "*/*"}
	}
	if status == http.StatusNotFound || strings.Contains(lm, "model") && modelMissing.MatchString(refusal.From(msg, lm, "model", 10)) {
		return fault{kind: keel.FaultNotFile}
	}
	return fault{}
}

// partTypeFault maps the wire type of a content part a server does not
// know to the files keel sends as that type.
func partTypeFault(wire string) (fault, bool) {
	switch strings.ToLower(wire) {
	case "image_url", "input_image", "image":
		return fault{kind: keel.FaultFileType, class: "image/*"}, true
	case "input_audio", "audio_url", "audio":
		return fault{kind: keel.FaultFileType, class: "audio/*"}, true
	case "file":
		// Chat Completions sends only PDFs (and PDF file IDs) as file
		// parts.
		return fault{kind: keel.FaultFileType, mediaType: "application/pdf"}, true
	case "input_file":
		// The Responses API sends every document as input_file.
		return fault{kind: keel.FaultFileType, class: "application/*"}, true
	}
	return fault{}, false
}

// saysUnsupported reports that a message about a kind of input says the
// model or server does not take it.
func saysUnsupported(msg string) bool {
	l := strings.ToLower(msg)
	for _, s := range []string{"not support", "no endpoints found", "unsupported", "missing data required", "does not support",
		"doesn't support", "not supported", "not enabled", "cannot", "can't", "unable"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// saysTooLarge reports an answer about a size limit: a 413, or a message
// that says a file or the request is too large.
func saysTooLarge(status int, msg string) bool {
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	l := strings.ToLower(msg)
	if strings.Contains(l, "context length") || strings.Contains(l, "tokens") {
		return false // a prompt too long for the model, not a file too large
	}
	return (strings.Contains(l, "too large") || strings.Contains(l, "exceeds") || strings.Contains(l, "maximum")) &&
		(strings.Contains(l, "size") || strings.Contains(l, "bytes") || strings.Contains(l, "mb") || strings.Contains(l, "payload") ||
			strings.Contains(l, "file"))
}

// inputKind finds the kind of input a message says is not taken, looking
// first around the message's last "input" (where such words usually
// end a message), then through the whole message.
func inputKind(msg, lm string) []string {
	if m := inputKindPattern.FindStringSubmatch(refusal.FromLast(msg, lm, cmp.Or(containing(lm, "input"), "content"), 20)); m != nil {
		return m
	}
	return inputKindPattern.FindStringSubmatch(msg)
}

// containing returns word when l holds it, else "".
func containing(l, word string) string {
	if strings.Contains(l, word) {
		return word
	}
	return ""
}

// mentionsGoneFile reports whether a lower-case message has the words
// fileGone needs, before that pattern runs.
func mentionsGoneFile(l string) bool {
	return strings.Contains(l, "file") && (strings.Contains(l, "not found") || strings.Contains(l, "does not exist") ||
		strings.Contains(l, "expired") || strings.Contains(l, "deleted") || strings.Contains(l, "no such file") ||
		strings.Contains(l, "invalid file id"))
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
