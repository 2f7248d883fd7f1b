package anthropic

import (
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/refusal"
)

// This file reads what an error answer says about the request's files.
// Anthropic's 400s point at the part they refuse by its path in the
// request ("messages.0.content.1.image.source.base64.media_type: Input
// should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"), so
// the refused type is the one that part was sent with.

// notAFileTypes are the error types no file causes.
var notAFileTypes = map[string]bool{
	"authentication_error": true, "permission_error": true, "not_found_error": true, "rate_limit_error": true,
	"billing_error": true, "overloaded_error": true,
}

// classify reads an error answer's status, type and message against the
// messages the request sent.
func classify(status int, typ, msg string, sent []anthropic.MessageParam) refusal.Fault {
	l := refusal.Lower(msg)
	if (status == 404 || status == 400 || typ == "not_found_error") && saysFileGone(l) {
		// A file ID of the Files API the request named that is not
		// there (deleted, another workspace's): "File not found:
		// file_011...".
		return refusal.Fault{Kind: keel.FaultFileGone}
	}
	if notAFileTypes[typ] || status == 401 || status == 403 || status == 404 || status == 429 {
		return refusal.Fault{Kind: keel.FaultNotFile}
	}
	if strings.Contains(l, "credit balance") || strings.Contains(l, "api key") {
		return refusal.Fault{Kind: keel.FaultNotFile}
	}
	var at refusal.Fault
	if n, m, kind := partPath(msg); kind != "" {
		at.MediaType = sentType(sent, n, m)
		if at.MediaType == "" {
			switch kind {
			case "image":
				at.Class = "image/*"
			default:
				at.MediaType = "application/pdf"
			}
		}
	}
	switch {
	case refusal.SaysPages(l):
		// "A maximum of 100 PDF pages may be provided."
		return refusal.Fault{Kind: keel.FaultFilePages, MediaType: orPDF(at.MediaType), Limit: refusal.PageLimit(l)}
	case typ == "request_too_large" || status == 413 || strings.Contains(l, "exceeds") && (strings.Contains(l, "bytes") || strings.Contains(l, " mb")):
		// "image exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes",
		// "Request exceeds the maximum allowed number of bytes."
		at.Kind, at.Limit = keel.FaultFileSize, refusal.SizeLimit(l)
		return at
	case at.MediaType != "" || at.Class != "":
		// "...media_type: Input should be 'application/pdf'", "Could not
		// process image", "Image does not match the provided media type".
		at.Kind = keel.FaultFileType
		return at
	case strings.Contains(l, "could not process image") || strings.Contains(l, "invalid image"):
		return refusal.Fault{Kind: keel.FaultFileType, Class: "image/*"}
	}
	return refusal.Fault{}
}

// sentType is the media type block m of message n was sent with, or ""
// when the answer points at no file block of the request.
func sentType(sent []anthropic.MessageParam, n, m string) string {
	i, err1 := strconv.Atoi(n)
	j, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || i < 0 || j < 0 || i >= len(sent) || sent[i].OfUser == nil || j >= len(sent[i].OfUser.Content) {
		return ""
	}
	b := sent[i].OfUser.Content[j]
	switch {
	case b.OfImage != nil:
		if s := b.OfImage.Source.OfBase64; s != nil {
			return string(s.MediaType)
		}
		return ""
	case b.OfDocument != nil:
		if b.OfDocument.Source.OfText != nil {
			return "text/plain"
		}
		return "application/pdf"
	}
	return ""
}

func orPDF(t string) string {
	if t == "" {
		return "application/pdf"
	}
	return t
}
