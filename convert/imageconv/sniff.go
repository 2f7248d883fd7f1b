package imageconv

import (
	"bytes"
	"path"
	"strings"

	"github.com/keel-go/keel"
)

// Format names an image format this package reads, as it is shown to a
// person or a model: "HEIC", "PNG".
type Format string

// The formats this package reads.
const (
	PNG  Format = "PNG"
	JPEG Format = "JPEG"
	GIF  Format = "GIF"
	BMP  Format = "BMP"
	TIFF Format = "TIFF"
	WebP Format = "WebP"
	HEIC Format = "HEIC"
	AVIF Format = "AVIF"
	SVG  Format = "SVG"
)

// MediaType returns the format's media type, such as "image/heic".
func (f Format) MediaType() string {
	switch f {
	case SVG:
		return "image/svg+xml"
	case "":
		return ""
	}
	return "image/" + strings.ToLower(string(f))
}

// Sniff returns the image format of data, found from its content; the name
// and media type the sender gave are used only for an SVG compressed with
// gzip (an .svgz), whose content alone says only "gzip". It returns "" for
// content that is no image this package reads.
func Sniff(name, mediaType string, data []byte) Format {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	case len(data) >= 26 && bytes.HasPrefix(data, []byte("BM")):
		return BMP
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return TIFF
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WEBP":
		return WebP
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		return sniffHEIF(data)
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		if keel.NormalizeMediaType(mediaType) == "image/svg+xml" || strings.EqualFold(path.Ext(name), ".svgz") {
			return SVG
		}
	case looksLikeSVG(data):
		return SVG
	}
	return ""
}

// sniffHEIF tells HEIC from AVIF by the brands of the ftyp box. A file
// may list both families ("mif1" is shared); the primary item's type,
// read later, is what decides, so a file with either family's brand is
// sent to the container reader, which knows.
func sniffHEIF(data []byte) Format {
	size := int(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3]))
	if size < 16 || size > len(data) || size > 4096 {
		size = min(len(data), 4096)
	}
	brands := data[8:size]
	var heic, avif, heif bool
	for i := 0; i+4 <= len(brands); i += 4 {
		if i == 4 {
			continue // the minor version, not a brand
		}
		switch string(brands[i : i+4]) {
		case "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs":
			heic = true
		case "avif", "avis":
			avif = true
		case "mif1", "msf1":
			heif = true
		}
	}
	switch {
	case avif && !heic:
		return AVIF
	case heic, heif:
		return HEIC // a bare HEIF is decided by its primary item's type
	}
	return ""
}

// looksLikeSVG reports whether data starts, after a byte order mark,
// white space, an XML declaration, comments and a document type, with an
// <svg element.
func looksLikeSVG(data []byte) bool {
	s := data[:min(len(data), 4096)]
	s = bytes.TrimPrefix(s, []byte("\xef\xbb\xbf"))
	for {
		s = bytes.TrimLeft(s, " \t\r\n")
		switch {
		case bytes.HasPrefix(s, []byte("<?")):
			i := bytes.Index(s, []byte("?>"))
			if i < 0 {
				return false
			}
			s = s[i+2:]
		case bytes.HasPrefix(s, []byte("<!--")):
			i := bytes.Index(s, []byte("-->"))
			if i < 0 {
				return false
			}
			s = s[i+3:]
		case bytes.HasPrefix(s, []byte("<!")):
			// A document type, perhaps with an internal subset: find the
			// <svg after it, which the XML reader checks properly.
			i := bytes.Index(s, []byte("<svg"))
			return i >= 0
		default:
			return bytes.HasPrefix(s, []byte("<svg")) && len(s) > 4 && strings.IndexByte(" \t\r\n>/", s[4]) >= 0
		}
	}
}
