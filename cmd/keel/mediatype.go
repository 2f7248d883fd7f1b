package main

import (
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/keel-go/keel"
)

// mediaTypes maps the extensions of the files people send most to their
// media types. The system's MIME table varies from machine to machine
// (and often lacks the office types), so these come first.
var mediaTypes = map[string]string{
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".xls":  "application/vnd.ms-excel",
	".doc":  "application/msword",
	".ppt":  "application/vnd.ms-powerpoint",
	".odt":  "application/vnd.oasis.opendocument.text",
	".ods":  "application/vnd.oasis.opendocument.spreadsheet",
	".odp":  "application/vnd.oasis.opendocument.presentation",
	".pdf":  "application/pdf",
	".csv":  "text/csv",
	".tsv":  "text/tab-separated-values",
	".md":   "text/markdown",
	".txt":  "text/plain",
	".html": "text/html",
	".htm":  "text/html",
	".xml":  "application/xml",
	".json": "application/json",
	".yaml": "application/yaml",
	".yml":  "application/yaml",
	".zip":  "application/zip",
	".gz":   "application/gzip",
	".tar":  "application/x-tar",
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".webp": "image/webp",
	".svg":  "image/svg+xml",
	".mp3":  "audio/mpeg",
	".wav":  "audio/wav",
	".mp4":  "video/mp4",
}

// mediaTypeOf returns the media type of a file: from its extension, else
// from its first bytes (http.DetectContentType), without parameters.
func mediaTypeOf(name string, data []byte) string {
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := mediaTypes[ext]; ok {
		return t
	}
	if ext != "" {
		if t := mime.TypeByExtension(ext); t != "" {
			return keel.NormalizeMediaType(t)
		}
	}
	return keel.NormalizeMediaType(http.DetectContentType(data))
}
