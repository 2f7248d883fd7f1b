package mcpclient

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolError is the error of a call the server answered with isError: the
// tool ran and failed, and Message is what it said. The model sees
// Message as the failed tool result.
type ToolError struct {
	Tool    string // the name the model called
	Message string
}

func (e *ToolError) Error() string { return e.Message }

// toResult maps a server's answer to what the model gets: text becomes
// the output, images, audio and embedded resources with bytes become
// files, resource links become text. name is the keel tool's name, which
// names the files that have none.
func toResult(name string, res *sdk.CallToolResult) (any, error) {
	var (
		texts []string
		files []keel.FilePart
	)
	addFile := func(data []byte, mediaType, filename string) {
		mediaType = cmp.Or(mediaType, "application/octet-stream")
		if filename == "" {
			filename = fmt.Sprintf("%s-%d%s", name, len(files)+1, extension(mediaType))
		}
		files = append(files, keel.FilePart{Data: data, MediaType: mediaType, Filename: filename})
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			addFile(c.Data, c.MIMEType, "")
		case *sdk.AudioContent:
			addFile(c.Data, c.MIMEType, "")
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Blob != nil:
				addFile(r.Blob, r.MIMEType, resourceName(r.URI))
			default:
				texts = append(texts, r.Text)
			}
		case *sdk.ResourceLink:
			texts = append(texts, describeLink(c))
		}
	}
	if res.IsError {
		msg := cmp.Or(strings.TrimSpace(strings.Join(texts, "\n")), "the tool failed and said nothing more")
		return nil, &ToolError{Tool: name, Message: msg}
	}
	var out any
	switch {
	case len(texts) > 0:
		out = strings.Join(texts, "\n")
	case res.StructuredContent != nil:
		// Servers should send structured content as text too; for one
		// that does not, the structure is the output.
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structured content: %w", err)
		}
		out = json.RawMessage(b)
	case len(files) == 1:
		out = "the tool returned a file: " + files[0].Filename
	case len(files) > 1:
		out = fmt.Sprintf("the tool returned %d files", len(files))
	default:
		out = ""
	}
	if len(files) == 0 {
		return out, nil
	}
	return tool.Result{Output: out, Files: files}, nil
}

// describeLink is the text a model reads for a resource link.
func describeLink(l *sdk.ResourceLink) string {
	var b strings.Builder
	b.WriteString("[resource link] ")
	if l.Name != "" {
		b.WriteString(l.Name + ": ")
	}
	b.WriteString(l.URI)
	if l.MIMEType != "" {
		b.WriteString(" (" + l.MIMEType + ")")
	}
	if l.Description != "" {
		b.WriteString(" - " + l.Description)
	}
	return b.String()
}

// resourceName is the last element of a resource's URI path, the name a
// person would give the file, or "" when there is none.
func resourceName(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	p := cmp.Or(u.Path, u.Opaque)
	base := path.Base(p)
	if base == "." || base == "/" || base == "" {
		return ""
	}
	return base
}

// extension is the extension of a file a tool answered with, with its
// dot: keel's own table first ([keel.ExtensionOf]), then the system's,
// which may differ from one machine to the next.
func extension(mediaType string) string {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		return ""
	}
	if ext := keel.ExtensionOf(mt); ext != "" {
		return "." + ext
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return exts[0]
	}
	return ""
}

// isToolError reports whether err is the tool's own failure rather than
// the connection's.
func isToolError(err error) bool {
	var te *ToolError
	return errors.As(err, &te)
}
