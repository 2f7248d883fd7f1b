package keel

import (
	"mime"
	"net/http"
	"slices"
	"strings"
)

// fileTypes is keel's one table of file extensions and media types: the
// files people send most, the office formats included, which the
// system's MIME table (it varies from machine to machine) often lacks.
// In each row the first extension and the first media type are the ones
// keel gives; the others are aliases it reads.
var fileTypes = []struct{ exts, types []string }{
	{[]string{"xlsx"}, []string{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}},
	{[]string{"docx"}, []string{"application/vnd.openxmlformats-officedocument.wordprocessingml.document"}},
	{[]string{"pptx"}, []string{"application/vnd.openxmlformats-officedocument.presentationml.presentation"}},
	{[]string{"xls"}, []string{"application/vnd.ms-excel"}},
	{[]string{"doc"}, []string{"application/msword"}},
	{[]string{"ppt"}, []string{"application/vnd.ms-powerpoint"}},
	{[]string{"odt"}, []string{"application/vnd.oasis.opendocument.text"}},
	{[]string{"ods"}, []string{"application/vnd.oasis.opendocument.spreadsheet"}},
	{[]string{"odp"}, []string{"application/vnd.oasis.opendocument.presentation"}},
	{[]string{"rtf"}, []string{"application/rtf", "text/rtf"}},
	{[]string{"epub"}, []string{"application/epub+zip"}},
	{[]string{"msg"}, []string{"application/vnd.ms-outlook"}},
	{[]string{"eml"}, []string{"message/rfc822"}},
	{[]string{"pdf"}, []string{"application/pdf"}},
	{[]string{"csv"}, []string{"text/csv"}},
	{[]string{"tsv"}, []string{"text/tab-separated-values"}},
	{[]string{"md", "markdown"}, []string{"text/markdown", "text/x-markdown"}},
	{[]string{"txt"}, []string{"text/plain"}},
	{[]string{"html", "htm"}, []string{"text/html"}},
	{[]string{"xml"}, []string{"application/xml", "text/xml"}},
	{[]string{"json"}, []string{"application/json"}},
	{[]string{"yaml", "yml"}, []string{"application/yaml", "application/x-yaml", "text/yaml"}},
	{[]string{"zip"}, []string{"application/zip", "application/x-zip-compressed"}},
	{[]string{"gz"}, []string{"application/gzip", "application/x-gzip"}},
	{[]string{"tar"}, []string{"application/x-tar"}},
	{[]string{"png"}, []string{"image/png"}},
	{[]string{"jpg", "jpeg"}, []string{"image/jpeg", "image/jpg"}},
	{[]string{"gif"}, []string{"image/gif"}},
	{[]string{"webp"}, []string{"image/webp"}},
	{[]string{"svg"}, []string{"image/svg+xml"}},
	{[]string{"heic"}, []string{"image/heic"}},
	{[]string{"heif"}, []string{"image/heif"}},
	{[]string{"avif"}, []string{"image/avif"}},
	{[]string{"tiff", "tif"}, []string{"image/tiff"}},
	{[]string{"bmp"}, []string{"image/bmp"}},
	{[]string{"mp3"}, []string{"audio/mpeg", "audio/mp3"}},
	{[]string{"wav"}, []string{"audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"}},
	{[]string{"ogg"}, []string{"audio/ogg"}},
	{[]string{"webm"}, []string{"audio/webm", "video/webm"}},
	{[]string{"mp4"}, []string{"video/mp4"}},
}

// MediaTypeByExtension returns the media type of a file extension ("xlsx"
// or ".XLSX"): from keel's table, else from the system's; "" when
// neither knows it.
func MediaTypeByExtension(ext string) string {
	ext = strings.ToLower(strings.TrimPrefix(ext, "."))
	if ext == "" {
		return ""
	}
	for _, r := range fileTypes {
		if slices.Contains(r.exts, ext) {
			return r.types[0]
		}
	}
	return NormalizeMediaType(mime.TypeByExtension("." + ext))
}

// ExtensionOf returns the extension keel gives a file of a media type,
// without the dot ("xlsx"; "jpg" for image/jpeg and its alias
// image/jpg), or "" when keel's table does not know it. The media type
// is normalised first.
func ExtensionOf(mediaType string) string {
	mt := NormalizeMediaType(mediaType)
	for _, r := range fileTypes {
		if slices.Contains(r.types, mt) {
			return r.exts[0]
		}
	}
	return ""
}

// MediaTypeOf returns the media type of a file named name holding data:
// by its name's extension ([MediaTypeByExtension]), else by its first
// bytes (http.DetectContentType), without parameters.
func MediaTypeOf(name string, data []byte) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.ContainsAny(name[i:], `/\`) {
		if t := MediaTypeByExtension(name[i+1:]); t != "" {
			return t
		}
	}
	return NormalizeMediaType(http.DetectContentType(data))
}
