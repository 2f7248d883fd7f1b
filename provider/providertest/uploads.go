package providertest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"time"
)

// Upload is a multipart/form-data file upload a server received, as
// OpenAI's POST /v1/files and Anthropic's POST /v1/files take them.
type Upload struct {
	// Fields are the form's other fields ("purpose", "expires_after[seconds]").
	Fields map[string]string
	// Field is the file's form field ("file"), Filename and ContentType
	// what its part's headers said.
	Field, Filename, ContentType string
	// Size and SHA256 (lower-case hex) are those of the file's bytes.
	Size   int64
	SHA256 string
}

// ParseUpload reads the multipart upload r carries. It fails for a body
// that is not multipart/form-data, or that holds no file or two.
func ParseUpload(r Recorded) (Upload, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return Upload{}, fmt.Errorf("providertest: upload: Content-Type %q is not multipart/form-data", r.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	up := Upload{Fields: map[string]string{}}
	files := 0
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Upload{}, fmt.Errorf("providertest: upload: %w", err)
		}
		if p.FileName() == "" {
			v, err := io.ReadAll(p)
			if err != nil {
				return Upload{}, fmt.Errorf("providertest: upload: field %s: %w", p.FormName(), err)
			}
			up.Fields[p.FormName()] = string(v)
			continue
		}
		files++
		h := sha256.New()
		n, err := io.Copy(h, p)
		if err != nil {
			return Upload{}, fmt.Errorf("providertest: upload: file: %w", err)
		}
		up.Field, up.Filename, up.ContentType = p.FormName(), p.FileName(), p.Header.Get("Content-Type")
		up.Size, up.SHA256 = n, hex.EncodeToString(h.Sum(nil))
	}
	if files != 1 {
		return Upload{}, fmt.Errorf("providertest: upload: %d files in the form; want 1", files)
	}
	return up, nil
}

// OpenAIFileBody is OpenAI's answer to POST /v1/files: the file object.
// expiresAt is its expires_at (Unix seconds), 0 for none.
func OpenAIFileBody(id string, up Upload, created time.Time, expiresAt int64) string {
	obj := map[string]any{"id": id, "object": "file", "bytes": up.Size, "created_at": created.Unix(),
		"filename": up.Filename, "purpose": up.Fields["purpose"], "status": "processed", "status_details": nil}
	if expiresAt > 0 {
		obj["expires_at"] = expiresAt
	}
	return mustJSON(obj)
}

// OpenAIFileGoneBody is OpenAI's 404 for a file ID it does not keep.
func OpenAIFileGoneBody(id string) string {
	return mustJSON(map[string]any{"error": map[string]any{"message": "No such File object: " + id,
		"type": "invalid_request_error", "param": "id", "code": nil}})
}

// AnthropicFileBody is Anthropic's answer to POST /v1/files (the Files
// API, beta): the file's metadata.
func AnthropicFileBody(id string, up Upload, created time.Time) string {
	return mustJSON(map[string]any{"id": id, "type": "file", "filename": up.Filename, "mime_type": up.ContentType,
		"size_bytes": up.Size, "created_at": created.UTC().Format(time.RFC3339Nano), "downloadable": false})
}

// AnthropicFileGoneBody is Anthropic's 404 for a file ID it does not
// keep.
func AnthropicFileGoneBody(id string) string {
	return mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error",
		"message": "File not found: " + id}, "request_id": "req_011CFileGone"})
}

func mustJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
