package openai

import (
	"net/http"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/refusal"
)

// This file reads what an error answer says about the request's files,
// for OpenAI and for the OpenAI-compatible servers people run (vLLM,
// llama.cpp, Ollama, OpenRouter, Mistral, Groq, LM Studio), each in its
// own wording. Every wording here was seen in a real answer; a new one
// goes in the table of tests beside this file.

// Each wording classify looks for is read by hand in the lower-case
// message (wordings.go): a case-insensitive regular expression over a
// message costs microseconds in Go's matcher, the scanners a fraction of
// one (BenchmarkClassify). wordings_internal_test.go keeps each wording
// as the regular expression it reads, and FuzzWordings holds the two to
// the same answers.
var (
	// notAFileCodes are the codes of answers no file causes.
	notAFileCodes = []string{"invalid_api_key", "insufficient_quota", "model_not_found", "account_deactivated",
		"billing_hard_limit_reached", "billing_not_active", "unsupported_country_region_territory", "rate_limit_exceeded",
		"invalid_organization", "organization_deactivated"}
	// imageCodes are OpenAI's codes for an image it cannot read.
	imageCodes = []string{"invalid_image_format", "invalid_image", "image_parse_error", "unsupported_image"}
)

// classify reads an error answer's status, code and message.
func classify(status int, code, msg string) refusal.Fault {
	lc, lm := strings.ToLower(code), refusal.Lower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests:
		return refusal.Fault{Kind: keel.FaultNotFile}
	case containsAny(lc, notAFileCodes):
		return refusal.Fault{Kind: keel.FaultNotFile}
	case status < 500 && (lc == "file_not_found" || saysFileGone(lm)):
		return refusal.Fault{Kind: keel.FaultFileGone}
	}
	if i, j := unsupportedMIME(lm); i >= 0 {
		return refusal.Fault{Kind: keel.FaultFileType, MediaType: msg[i:j]}
	}
	if i, j := notSupportedType(lm); i >= 0 {
		return refusal.Fault{Kind: keel.FaultFileType, MediaType: msg[i:j]}
	}
	if i, j := partType(lm); i >= 0 {
		if f, ok := partTypeFault(lm[i:j]); ok {
			return f
		}
	}
	if containsAny(lc, imageCodes) {
		return refusal.Fault{Kind: keel.FaultFileType, Class: "image/*"}
	}
	if refusal.SaysPages(lm) {
		return refusal.Fault{Kind: keel.FaultFilePages, MediaType: "application/pdf", Limit: refusal.PageLimit(lm)}
	}
	if saysTooLarge(status, lm) {
		return refusal.Fault{Kind: keel.FaultFileSize, Limit: refusal.SizeLimit(lm)}
	}
	if (strings.Contains(lm, "input") || strings.Contains(lm, "content")) && saysUnsupported(lm) {
		switch inputKind(lm) {
		case "":
		case "image", "vision":
			return refusal.Fault{Kind: keel.FaultFileType, Class: "image/*"}
		case "audio":
			return refusal.Fault{Kind: keel.FaultFileType, Class: "audio/*"}
		default:
			// Chat Completions sends only PDFs as files.
			return refusal.Fault{Kind: keel.FaultFileType, MediaType: "application/pdf"}
		}
	}
	if mustBeString(lm) {
		// A server that takes text only: every file of the message is
		// refused, and the message without them goes as a string.
		return refusal.Fault{Kind: keel.FaultFileType, Class: "*/*"}
	}
	if status == http.StatusNotFound || modelMissing(lm) {
		return refusal.Fault{Kind: keel.FaultNotFile}
	}
	return refusal.Fault{}
}

// partTypeFault maps the wire type of a content part a server does not
// know to the files keel sends as that type.
func partTypeFault(wire string) (refusal.Fault, bool) {
	switch strings.ToLower(wire) {
	case "image_url", "input_image", "image":
		return refusal.Fault{Kind: keel.FaultFileType, Class: "image/*"}, true
	case "input_audio", "audio_url", "audio":
		return refusal.Fault{Kind: keel.FaultFileType, Class: "audio/*"}, true
	case "file":
		// Chat Completions sends only PDFs (and PDF file IDs) as file
		// parts.
		return refusal.Fault{Kind: keel.FaultFileType, MediaType: "application/pdf"}, true
	case "input_file":
		// The Responses API sends every document as input_file.
		return refusal.Fault{Kind: keel.FaultFileType, Class: "application/*"}, true
	}
	return refusal.Fault{}, false
}

// saysUnsupported reports that a lower-case message about a kind of
// input says the model or server does not take it.
func saysUnsupported(l string) bool {
	return containsAny(l, []string{"not support", "no endpoints found", "unsupported", "missing data required", "does not support",
		"doesn't support", "not supported", "not enabled", "cannot", "can't", "unable"})
}

// saysTooLarge reports an answer about a size limit: a 413, or a
// lower-case message that says a file or the request is too large.
func saysTooLarge(status int, l string) bool {
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	if strings.Contains(l, "context length") || strings.Contains(l, "tokens") {
		return false // a prompt too long for the model, not a file too large
	}
	return (strings.Contains(l, "too large") || strings.Contains(l, "exceeds") || strings.Contains(l, "maximum")) &&
		(strings.Contains(l, "size") || strings.Contains(l, "bytes") || strings.Contains(l, "mb") || strings.Contains(l, "payload") ||
			strings.Contains(l, "file"))
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
