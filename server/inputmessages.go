package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/keel-go/keel"
)

// wireMessage is a message in the AI SDK's shape.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// wirePart is a content part in the AI SDK's shape. Only the fields of
// text, file and image parts are read.
type wirePart struct {
	Type      string  `json:"type"`
	Text      string  `json:"text"`
	Data      *string `json:"data"`
	Image     *string `json:"image"`
	URL       string  `json:"url"`
	MediaType string  `json:"mediaType"`
	// MimeType is the old name of MediaType.
	MimeType string `json:"mimeType"`
	Filename string `json:"filename"`
}

// decodeMessages reads the messages of a run: a string (one user message)
// or an array of messages. Every file's data is decoded once here, so an
// undecodable file is a 400 before anything is stored.
func decodeMessages(raw json.RawMessage) ([]keel.Message, *requestError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "is required: a string or an array of messages"})
	}
	switch raw[0] {
	case '"':
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, badRequest("invalid request body", Issue{Field: "messages", Message: err.Error()})
		}
		return []keel.Message{keel.UserText(text)}, nil
	case '[':
	case '{':
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "must be a string or an array of messages, not a single message object: wrap it in [ ]"})
	default:
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "must be a string or an array of messages"})
	}
	var wms []wireMessage
	if err := json.Unmarshal(raw, &wms); err != nil {
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "must be an array of {role, content}: " + err.Error()})
	}
	if len(wms) == 0 {
		return nil, badRequest("invalid request body", Issue{Field: "messages", Message: "is empty: send at least one message"})
	}
	msgs := make([]keel.Message, 0, len(wms))
	var issues []Issue
	for i, wm := range wms {
		field := fmt.Sprintf("messages[%d]", i)
		m, iss := decodeMessage(field, wm)
		issues = append(issues, iss...)
		msgs = append(msgs, m)
	}
	if len(issues) > 0 {
		return nil, badRequest("invalid request body", issues...)
	}
	return msgs, nil
}

func decodeMessage(field string, wm wireMessage) (keel.Message, []Issue) {
	m := keel.Message{Role: keel.Role(wm.Role)}
	switch m.Role {
	case keel.RoleUser, keel.RoleAssistant, keel.RoleSystem:
	default:
		return m, []Issue{{Field: field + ".role", Message: fmt.Sprintf("is %q; want user, assistant or system", trimField(wm.Role))}}
	}
	content := bytes.TrimSpace(wm.Content)
	if len(content) == 0 || content[0] != '"' && content[0] != '[' {
		return m, []Issue{{Field: field + ".content", Message: "must be a string or an array of parts"}}
	}
	if content[0] == '"' {
		var text string
		if err := json.Unmarshal(content, &text); err != nil {
			return m, []Issue{{Field: field + ".content", Message: err.Error()}}
		}
		m.Parts = []keel.Part{keel.TextPart{Text: text}}
		return m, nil
	}
	var wps []wirePart
	if err := json.Unmarshal(content, &wps); err != nil {
		return m, []Issue{{Field: field + ".content", Message: "must be an array of parts: " + err.Error()}}
	}
	var issues []Issue
	m.Parts = make([]keel.Part, 0, len(wps))
	for j, wp := range wps {
		pf := fmt.Sprintf("%s.content[%d]", field, j)
		p, issue := decodePart(pf, wp)
		if issue != nil {
			issues = append(issues, *issue)
			continue
		}
		m.Parts = append(m.Parts, p)
	}
	return m, issues
}

func decodePart(field string, wp wirePart) (keel.Part, *Issue) {
	switch wp.Type {
	case "text":
		return keel.TextPart{Text: wp.Text}, nil
	case "file":
		data := wp.Data
		if data == nil && wp.URL != "" {
			data = &wp.URL
		}
		if data == nil {
			return nil, &Issue{Field: field + ".data", Message: "is required: a data: URL, base64 or an http(s) URL"}
		}
		return decodeFile(field+".data", *data, firstOf(wp.MediaType, wp.MimeType), wp.Filename, false)
	case "image":
		if wp.Image == nil {
			return nil, &Issue{Field: field + ".image", Message: "is required: a data: URL, base64 or an http(s) URL"}
		}
		return decodeFile(field+".image", *wp.Image, firstOf(wp.MediaType, wp.MimeType), wp.Filename, true)
	default:
		return nil, &Issue{Field: field + ".type", Message: fmt.Sprintf("is %q; want text, file or image", trimField(wp.Type))}
	}
}

// decodeFile checks a file's data and returns its part. A data: URL is
// kept as the caller wrote it, so the stored file is what was sent; raw
// base64 is decoded to bytes.
func decodeFile(field, data, mediaType, filename string, image bool) (keel.Part, *Issue) {
	f := keel.FilePart{MediaType: mediaType, Filename: filename}
	lower := strings.ToLower(data[:min(len(data), 8)])
	switch {
	case data == "":
		return nil, &Issue{Field: field, Message: "is empty"}
	case strings.HasPrefix(lower, "data:"):
		mt, _, err := keel.ParseDataURL(data)
		if err != nil {
			return nil, &Issue{Field: field, Message: "is a data: URL that cannot be decoded: " + err.Error()}
		}
		if f.MediaType == "" {
			f.MediaType = mt
		}
		f.URL = data
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		f.URL = data
	default:
		b, err := keel.DecodeBase64(data)
		if err != nil {
			return nil, &Issue{Field: field, Message: "is neither a data: URL, an http(s) URL nor base64"}
		}
		f.Data = b
		if f.MediaType == "" && image {
			f.MediaType = http.DetectContentType(b)
		}
	}
	if f.MediaType == "" {
		if !image {
			return nil, &Issue{Field: strings.TrimSuffix(field, ".data") + ".mediaType", Message: "is required for a file"}
		}
		f.MediaType = "image/*"
	}
	return f, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
