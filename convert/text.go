package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Text returns the converter of text sent under a media type that is not
// text/*: JSON, NDJSON, XML, YAML, TOML, CSV and TSV, source code, and
// application/octet-stream whose content is text. The text is sent as it
// is, as UTF-8 with LF line ends: UTF-16 with a byte order mark and
// charsets named by the media type are decoded.
func Text() Converter { return textConverter{} }

type textConverter struct{}

// textKinds names what text is by media type or extension, for its
// description.
var textKinds = map[string]string{
	"application/json": "JSON", "application/ld+json": "JSON", ".json": "JSON", ".geojson": "JSON",
	"application/x-ndjson": "NDJSON", "application/ndjson": "NDJSON", "application/jsonl": "NDJSON", "application/x-jsonlines": "NDJSON", ".ndjson": "NDJSON", ".jsonl": "NDJSON",
	"application/xml": "XML", "text/xml": "XML", ".xml": "XML", ".xsd": "XML", ".xsl": "XML",
	"application/yaml": "YAML", "application/x-yaml": "YAML", "text/yaml": "YAML", "text/x-yaml": "YAML", ".yaml": "YAML", ".yml": "YAML",
	"application/toml": "TOML", "application/x-toml": "TOML", ".toml": "TOML",
	"text/csv": "CSV", "application/csv": "CSV", ".csv": "CSV",
	"text/tab-separated-values": "TSV", ".tsv": "TSV", ".tab": "TSV",
	"text/markdown": "Markdown", ".md": "Markdown", ".markdown": "Markdown",
	"application/sql": "SQL", ".sql": "SQL",
	"application/javascript": "JavaScript", "text/javascript": "JavaScript", ".js": "JavaScript", ".mjs": "JavaScript", ".jsx": "JavaScript",
	".ts": "TypeScript", ".tsx": "TypeScript", ".go": "Go", ".py": "Python", "text/x-python": "Python", "application/x-python": "Python",
	".java": "Java", ".kt": "Kotlin", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".cs": "C#",
	".rb": "Ruby", ".rs": "Rust", ".php": "PHP", "application/x-httpd-php": "PHP", ".swift": "Swift", ".scala": "Scala",
	".sh": "shell script", ".bash": "shell script", ".zsh": "shell script", "application/x-sh": "shell script", "text/x-shellscript": "shell script",
	".css": "CSS", ".scss": "CSS", ".proto": "Protocol Buffers", ".graphql": "GraphQL", "application/graphql": "GraphQL",
	".lua": "Lua", ".pl": "Perl", ".r": "R", ".tf": "Terraform", ".ini": "INI", ".cfg": "configuration", ".conf": "configuration",
	".properties": "properties", ".log": "log", ".txt": "text", "text/plain": "text", ".tex": "TeX", "application/x-tex": "TeX",
}

func (textConverter) Format() Format { return textFormat() }

var textFormat = sync.OnceValue(func() Format {
	f := Format{Kind: "text", Sniff: sniffText}
	for k := range textKinds {
		if strings.HasPrefix(k, ".") {
			f.Extensions = append(f.Extensions, k)
		} else {
			f.MediaTypes = append(f.MediaTypes, k)
		}
	}
	slices.Sort(f.Extensions)
	slices.Sort(f.MediaTypes)
	return f
})

func (textConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	text, err := decodeText(in)
	if err != nil {
		return nil, err
	}
	kind := textKinds[in.mediaType()]
	if kind == "" {
		kind = textKinds[in.Ext()]
	}
	if kind == "" {
		kind = sniffTextKind(text)
	}
	s := newSink(lim.MaxChars, "lines")
	lines := 0
	for rest := text; rest != ""; lines++ {
		if lines&0xFFF == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		if s.full {
			s.skip(utf8.RuneCountInString(line), 1)
		} else {
			s.unit(line)
		}
	}
	return &Result{Kind: "text", As: "text", Description: kind + ", " + plural(lines, "line"), Text: s.text(), Omitted: s.omit}, nil
}

// sniffText accepts text: UTF-8 or UTF-16 by its content, or another
// charset when the media type names one.
func sniffText(in *Input, _ Limits) bool {
	if isText(in.Data) {
		return true
	}
	_, params, _ := mime.ParseMediaType(in.MediaType)
	if _, err := htmlindex.Get(params["charset"]); err != nil || bytes.IndexByte(in.Data, 0) >= 0 {
		return false
	}
	return len(in.Data) > 0
}

// decodeText returns the input as UTF-8 with LF line ends: UTF-16 by its
// byte order mark, another charset when the media type names one, UTF-8
// otherwise (its byte order mark dropped).
func decodeText(in *Input) (string, error) {
	data := in.Data
	switch {
	case hasUTF16BOM(data):
		out, _, err := transform.Bytes(unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder(), data)
		if err != nil {
			return "", formatErr("", "bad UTF-16 text", err)
		}
		data = out
	case utf8.Valid(data):
		data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	default:
		_, params, _ := mime.ParseMediaType(in.MediaType)
		enc, err := htmlindex.Get(params["charset"])
		if err != nil {
			return "", formatErr("", "the content is not UTF-8 text and its media type names no known charset", nil)
		}
		out, _, err := transform.Bytes(enc.NewDecoder(), data)
		if err != nil {
			return "", formatErr("", "the content is not "+params["charset"]+" text", err)
		}
		data = out
	}
	text := string(data)
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	}
	return text, nil
}

// sniffTextKind names text that came without a telling type or name.
func sniffTextKind(text string) string {
	t := strings.TrimSpace(text)
	switch {
	case t == "":
		return "text"
	case (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)):
		return "JSON"
	case t[0] == '{' && isNDJSON(t):
		return "NDJSON"
	case strings.HasPrefix(t, "<?xml"):
		return "XML"
	}
	return "text"
}

func isNDJSON(t string) bool {
	for line := range strings.Lines(t) {
		if line = strings.TrimSpace(line); line != "" && !json.Valid([]byte(line)) {
			return false
		}
	}
	return true
}
