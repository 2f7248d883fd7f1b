package googletest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// Body is a generateContent request body as the Gemini API reads it; only
// the fields keel sends are decoded.
type Body struct {
	// Contents are the turns, in order.
	Contents []Content `json:"contents"`
	// SystemInstruction holds the system messages' text; nil without any.
	SystemInstruction *Content `json:"systemInstruction,omitempty"`
	// Tools declare the functions the model may call.
	Tools []Tool `json:"tools,omitempty"`
	// ToolConfig and GenerationConfig are kept raw.
	ToolConfig       json.RawMessage `json:"toolConfig,omitempty"`
	GenerationConfig json.RawMessage `json:"generationConfig,omitempty"`
}

// Content is one turn: role "user" or "model", and its parts.
type Content struct {
	Role  string `json:"role,omitempty"`
	Parts []Part `json:"parts"`
}

// Part is one part of a [Content]; one of its fields is set.
type Part struct {
	Text             string            `json:"text,omitempty"`
	InlineData       *InlineData       `json:"inlineData,omitempty"`
	FileData         *FileData         `json:"fileData,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
	// ThoughtSignature is base64, as on the wire.
	ThoughtSignature string `json:"thoughtSignature,omitempty"`
}

// InlineData is a file sent in the request; Data is base64.
type InlineData struct {
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"`
}

// FileData is a file sent by URI.
type FileData struct {
	MIMEType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

// FunctionCall is a tool call of the model, sent back in the history.
type FunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// FunctionResponse is a tool's result.
type FunctionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// Tool holds function declarations.
type Tool struct {
	FunctionDeclarations []FunctionDeclaration `json:"functionDeclarations,omitempty"`
}

// FunctionDeclaration declares one tool.
type FunctionDeclaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

// Decode decodes a generateContent request body.
func Decode(body []byte) (Body, error) {
	var b Body
	if err := json.Unmarshal(body, &b); err != nil {
		return Body{}, fmt.Errorf("googletest: decode request: %w", err)
	}
	return b, nil
}

// UserTexts returns the text parts of the user turns, in order.
func (b Body) UserTexts() []string {
	var out []string
	for _, c := range b.Contents {
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != "" {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// Files returns the file parts of every turn, in order, decoded. Gemini's
// parts carry no file name, so Name is always "".
func (b Body) Files() ([]providertest.SentFile, error) {
	var out []providertest.SentFile
	for _, c := range b.Contents {
		for _, p := range c.Parts {
			switch {
			case p.InlineData != nil:
				data, err := base64.StdEncoding.DecodeString(p.InlineData.Data)
				if err != nil {
					return nil, fmt.Errorf("googletest: inline data of type %s is not base64: %w", p.InlineData.MIMEType, err)
				}
				out = append(out, providertest.SentFile{
					MediaType: keel.NormalizeMediaType(p.InlineData.MIMEType), Encoding: "base64", Data: data,
				})
			case p.FileData != nil:
				out = append(out, providertest.SentFile{
					MediaType: keel.NormalizeMediaType(p.FileData.MIMEType), Encoding: "url", URL: p.FileData.FileURI,
				})
			}
		}
	}
	return out, nil
}

// InlineMediaTypes returns the media types of the inline files of every
// turn, in order.
func (b Body) InlineMediaTypes() []string {
	var out []string
	for _, c := range b.Contents {
		for _, p := range c.Parts {
			if p.InlineData != nil {
				out = append(out, strings.ToLower(p.InlineData.MIMEType))
			}
		}
	}
	return out
}
