package server

import (
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/keel-go/keel"
)

// decodeMessages reads the messages of a run from their generic JSON
// value: a string (one user message) or an array of messages in the AI
// SDK's shape. Every file's data is decoded here, so an undecodable file
// is a 400 before anything is stored; more than maxFiles files (when
// maxFiles >= 0) are a 400 before any is decoded.
func decodeMessages(v any, maxFiles int) ([]keel.Message, *requestError) {
	switch v := v.(type) {
	case nil:
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "is required: a string or an array of messages"})
	case string:
		return []keel.Message{keel.UserText(v)}, nil
	case map[string]any:
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "must be a string or an array of messages, not a single message object: wrap it in [ ]"})
	case []any:
		if len(v) == 0 {
			return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "is empty: send at least one message"})
		}
		if n := countFiles(v); maxFiles >= 0 && n > maxFiles {
			return nil, badRequest("invalid request body", Issue{Field: "messages",
				Message: fmt.Sprintf("hold %d files; at most %d are accepted in one request: send the rest in another", n, maxFiles)})
		}
		msgs := make([]keel.Message, 0, len(v))
		var issues []Issue
		for i, wm := range v {
			m, iss := decodeMessage(fmt.Sprintf("messages[%d]", i), wm)
			issues = append(issues, iss...)
			msgs = append(msgs, m)
		}
		if len(issues) > 0 {
			return nil, badRequest("invalid request body", issues...)
		}
		return msgs, nil
	default:
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "must be a string or an array of messages"})
	}
}

// countFiles counts the file and image parts of messages.
func countFiles(messages []any) int {
	n := 0
	for _, m := range messages {
		obj, _ := m.(map[string]any)
		parts, _ := obj["content"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			if t, _ := part["type"].(string); t == "file" || t == "image" {
				n++
			}
		}
	}
	return n
}

func decodeMessage(field string, v any) (keel.Message, []Issue) {
	obj, ok := v.(map[string]any)
	if !ok {
		return keel.Message{}, []Issue{{Field: field, Message: "must be an object {role, content}"}}
	}
	role, _ := obj["role"].(string)
	m := keel.Message{Role: keel.Role(role)}
	switch m.Role {
	case keel.RoleUser, keel.RoleAssistant, keel.RoleSystem:
	default:
		return m, []Issue{{Field: field + ".role", Message: fmt.Sprintf("is %q; want user, assistant or system", trimField(role))}}
	}
	switch content := obj["content"].(type) {
	case string:
		m.Parts = []keel.Part{keel.TextPart{Text: content}}
		return m, nil
	case []any:
		var issues []Issue
		m.Parts = make([]keel.Part, 0, len(content))
		for j, wp := range content {
			p, issue := decodePart(fmt.Sprintf("%s.content[%d]", field, j), wp)
			if issue != nil {
				issues = append(issues, *issue)
				continue
			}
			m.Parts = append(m.Parts, p)
		}
		return m, issues
	default:
		return m, []Issue{{Field: field + ".content", Message: "must be a string or an array of parts"}}
	}
}

func decodePart(field string, v any) (keel.Part, *Issue) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &Issue{Field: field, Message: "must be an object {type, ...}"}
	}
	str := func(k string) string { s, _ := obj[k].(string); return s }
	mediaType, mtField := str("mediaType"), field+".mediaType"
	if mediaType == "" && str("mimeType") != "" {
		mediaType, mtField = str("mimeType"), field+".mimeType"
	}
	switch typ := str("type"); typ {
	case "text":
		text, ok := obj["text"].(string)
		if !ok {
			return nil, &Issue{Field: field + ".text", Message: "must be a string"}
		}
		return keel.TextPart{Text: text}, nil
	case "file":
		data, ok := obj["data"].(string)
		if !ok {
			data, ok = obj["url"].(string)
		}
		if !ok {
			return nil, &Issue{Field: field + ".data", Message: "is required: a data: URL, base64 or an http(s) URL"}
		}
		return decodeFile(field+".data", data, mediaType, mtField, capFilename(str("filename")), false)
	case "image":
		data, ok := obj["image"].(string)
		if !ok {
			return nil, &Issue{Field: field + ".image", Message: "is required: a data: URL, base64 or an http(s) URL"}
		}
		return decodeFile(field+".image", data, mediaType, mtField, capFilename(str("filename")), true)
	default:
		return nil, &Issue{Field: field + ".type", Message: fmt.Sprintf("is %q; want text, file or image", trimField(typ))}
	}
}

// decodeFile checks a file's data and returns its part. A data: URL
// whose form keel writes back identically (canonical base64, the part's
// own media type) is decoded once and kept as bytes, which the store uses
// without decoding again (see keel.FileFromBase64); any other data: URL
// is checked and kept as the caller wrote it. Either way the stored file
// reads back as it was sent.
func decodeFile(field, data, mediaType, mtField, filename string, image bool) (keel.Part, *Issue) {
	if mediaType != "" {
		if err := keel.CheckMediaType(mediaType); err != nil {
			return nil, &Issue{Field: mtField, Message: "is not a valid media type: " + mediaTypeRule(err)}
		}
	}
	f := keel.FilePart{MediaType: mediaType, Filename: filename}
	lower := strings.ToLower(data[:min(len(data), 8)])
	switch {
	case data == "":
		return nil, &Issue{Field: field, Message: "is empty"}
	case strings.HasPrefix(lower, "data:"):
		header, payload, comma := strings.Cut(data[len("data:"):], ",")
		if !comma {
			// Without it there is no data at all, not an empty file.
			return nil, &Issue{Field: field, Message: "is a data: URL without the comma before its data: write data:<type>;base64,<data>"}
		}
		mt, isBase64 := strings.CutSuffix(header, ";base64")
		if mt != "" {
			// The data: URL is stored and may be sent as it is: its own
			// type must be as safe as the part's.
			if err := keel.CheckMediaType(mt); err != nil {
				return nil, &Issue{Field: field, Message: "is a data: URL whose media type is not valid: " + mediaTypeRule(err)}
			}
		}
		if f.MediaType == "" {
			f.MediaType = mt
		}
		if isBase64 && mt == f.MediaType && data[:len("data:")] == "data:" {
			if g, err := keel.FileFromBase64(payload, f.MediaType, f.Filename); err == nil {
				f = g
			}
		}
		if f.Data == nil {
			if _, _, err := keel.ParseDataURL(data); err != nil {
				return nil, &Issue{Field: field, Message: "is a data: URL that cannot be decoded: " + err.Error()}
			}
			f.URL = data
		}
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		f.URL = data
	default:
		g, err := keel.FileFromBase64(data, f.MediaType, f.Filename)
		if err != nil {
			b, err := keel.DecodeBase64(data)
			if err != nil {
				return nil, &Issue{Field: field, Message: "is neither a data: URL, an http(s) URL nor base64"}
			}
			g = keel.FilePart{Data: b, MediaType: f.MediaType, Filename: f.Filename}
		}
		f = g
		if f.MediaType == "" && image {
			f.MediaType = http.DetectContentType(f.Data)
		}
	}
	if f.MediaType == "" {
		if !image {
			return nil, &Issue{Field: mtField, Message: "is required for a file"}
		}
		f.MediaType = "image/*"
	}
	return f, nil
}

// maxFilenameBytes is the longest file name kept: a longer one is cut
// (see capFilename), so that no name becomes a header line clients
// refuse.
const maxFilenameBytes = 255

// capFilename cuts name to maxFilenameBytes bytes, as most file systems
// do, at a character's edge, keeping its extension (up to 32 bytes of it)
// so that what the name says of the file's type stays.
func capFilename(name string) string {
	if len(name) <= maxFilenameBytes {
		return name
	}
	ext := path.Ext(name)
	if len(ext) > 32 {
		ext = ""
	}
	stem := name[:maxFilenameBytes-len(ext)]
	for i := 0; i < utf8.UTFMax && stem != ""; i++ {
		if r, size := utf8.DecodeLastRuneInString(stem); r != utf8.RuneError || size != 1 {
			break
		}
		stem = stem[:len(stem)-1] // a character cut in two
	}
	return stem + ext
}

// mediaTypeRule is what CheckMediaType found wrong.
func mediaTypeRule(err error) string {
	return strings.TrimPrefix(err.Error(), keel.ErrInvalidMediaType.Error()+" ")
}

// firstOf returns the first of vals that is not empty, or "".
func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
