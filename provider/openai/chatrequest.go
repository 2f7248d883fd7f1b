package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// chatParams builds the Chat Completions request. File contents go to
// files as placeholders; a file the API cannot take is refused here,
// before anything is sent.
func (m *Model) chatParams(req *keel.Request, files *inline.Files) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: m.name}
	for _, msg := range req.Messages {
		switch msg.Role {
		case keel.RoleSystem:
			if t := msg.Text(); t != "" {
				p.Messages = append(p.Messages, sdk.SystemMessage(t))
			}
		case keel.RoleUser:
			u, err := m.chatUserMessage(msg, files)
			if err != nil {
				return p, err
			}
			p.Messages = append(p.Messages, u)
		case keel.RoleAssistant:
			a, err := chatAssistantMessage(msg)
			if err != nil {
				return p, err
			}
			p.Messages = append(p.Messages, a)
		case keel.RoleTool:
			for _, part := range msg.Parts {
				if r, ok := part.(keel.ToolResultPart); ok {
					p.Messages = append(p.Messages, sdk.ToolMessage(toolOutputText(r), r.CallID))
				}
			}
			if returned, ok := toolFiles(msg); ok {
				// A tool message takes text only: the files the tools
				// returned follow as the user's.
				u, err := m.chatUserMessage(returned, files)
				if err != nil {
					return p, err
				}
				p.Messages = append(p.Messages, u)
			}
		default:
			return p, fmt.Errorf("openai: build request: unknown role %q", msg.Role)
		}
	}
	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return p, err
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			def.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(def))
	}
	switch c := req.ToolChoice; c {
	case "":
	case "auto", "none", "required":
		p.ToolChoice.OfAuto = param.NewOpt(c)
	default:
		p.ToolChoice = sdk.ToolChoiceOptionFunctionToolChoice(sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: c})
	}
	if req.MaxOutputTokens > 0 {
		// OpenAI's newer models take only max_completion_tokens; servers
		// that copy the older API know only max_tokens.
		if m.provider == "openai" {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxOutputTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxOutputTokens))
		}
	}
	if req.HasTemperature {
		p.Temperature = param.NewOpt(req.Temperature)
	}
	return p, nil
}

func (m *Model) chatUserMessage(msg keel.Message, files *inline.Files) (sdk.ChatCompletionMessageParamUnion, error) {
	if len(msg.Parts) == 1 {
		if t, ok := msg.Parts[0].(keel.TextPart); ok {
			return sdk.UserMessage(t.Text), nil
		}
	}
	if m.compatible() {
		if text, ok := textOnly(msg.Parts); ok {
			// Servers that copy the API for text models (Groq's, some
			// llama.cpp builds) take content as a string only. A message
			// whose files were replaced by notes is text alone again.
			return sdk.UserMessage(text), nil
		}
	}
	parts := make([]sdk.ChatCompletionContentPartUnionParam, 0, len(msg.Parts))
	for i, part := range msg.Parts {
		switch p := part.(type) {
		case keel.TextPart:
			parts = append(parts, sdk.TextContentPart(p.Text))
		case keel.FilePart:
			c, err := m.chatFilePart(p, i, files)
			if err != nil {
				return sdk.ChatCompletionMessageParamUnion{}, err
			}
			parts = append(parts, c)
		default:
			return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("openai: build request: a user message cannot hold a %s part", part.PartType())
		}
	}
	return sdk.UserMessage(parts), nil
}

// toolFiles returns a user message holding the files of a tool message
// (the files its tools returned, after their results), each after a
// line naming the tool; false when it holds none.
func toolFiles(msg keel.Message) (keel.Message, bool) {
	var parts []keel.Part
	tool := ""
	for _, part := range msg.Parts {
		switch p := part.(type) {
		case keel.ToolResultPart:
			tool = p.Name
		case keel.FilePart:
			parts = append(parts, keel.TextPart{Text: "[File returned by the tool " + tool + "]"}, p)
		}
	}
	return keel.Message{Role: keel.RoleUser, Parts: parts}, len(parts) > 0
}

// textOnly returns the text of parts joined by blank lines, when they
// are all text.
func textOnly(parts []keel.Part) (string, bool) {
	var b strings.Builder
	for i, part := range parts {
		t, ok := part.(keel.TextPart)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t.Text)
	}
	return b.String(), true
}

// chatFilePart encodes a file the way Chat Completions takes
// it, or refuses it with the functionality string keel's processors read.
func (m *Model) chatFilePart(f keel.FilePart, index int, files *inline.Files) (sdk.ChatCompletionContentPartUnionParam, error) {
	var none sdk.ChatCompletionContentPartUnionParam
	mt := inline.MediaType(f)
	src := f.Source()
	switch {
	case strings.HasPrefix(mt, "image/"):
		if !m.takesImage(mt) {
			return none, refuseType("image part media type ", f)
		}
		switch src {
		case keel.SourceHTTP:
			return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: f.URL}), nil
		case keel.SourceReference:
			return none, refuse("image file parts with file IDs")
		}
		u, err := dataURL(files, f, mt)
		if err != nil {
			return none, err
		}
		return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: u}), nil

	case strings.HasPrefix(mt, "audio/"):
		if !f.IsInline() {
			return none, refuse("audio file parts with URLs")
		}
		format := ""
		switch mt {
		case "audio/wav":
			format = "wav"
		case "audio/mpeg", "audio/mp3":
			format = "mp3"
		default:
			return none, refuseType("audio content parts with media type ", f)
		}
		b64, err := files.Text(f)
		if err != nil {
			return none, fileError(f, err)
		}
		return sdk.InputAudioContentPart(sdk.ChatCompletionContentPartInputAudioInputAudioParam{
			Data: b64, Format: format,
		}), nil

	case mt == "application/pdf":
		switch src {
		case keel.SourceHTTP:
			return none, refuse("PDF file parts with URLs")
		case keel.SourceReference:
			return sdk.FileContentPart(sdk.ChatCompletionContentPartFileFileParam{FileID: param.NewOpt(f.URL)}), nil
		}
		u, err := dataURL(files, f, mt)
		if err != nil {
			return none, err
		}
		name := f.Filename
		if name == "" {
			name = fmt.Sprintf("part-%d.pdf", index)
		}
		return sdk.FileContentPart(sdk.ChatCompletionContentPartFileFileParam{
			FileData: param.NewOpt(u), Filename: param.NewOpt(name),
		}), nil
	}
	return none, refuseType("file part media type ", f)
}

// refuse is the refusal of something the API cannot take other than a
// media type: a file's source, or its place.
func refuse(functionality string) error {
	return &keel.UnsupportedFunctionalityError{Functionality: functionality}
}

// refuseType is the refusal of f because of its media type, named as the
// request gave it after what.
func refuseType(what string, f keel.FilePart) error {
	mt := inline.Given(f)
	return &keel.UnsupportedFunctionalityError{Functionality: what + mt, MediaType: mt}
}

// dataURL returns a data: URL of type mediaType whose base64 stands for
// f's inline content in files.
func dataURL(files *inline.Files, f keel.FilePart, mediaType string) (string, error) {
	b64, err := files.Text(f)
	if err != nil {
		return "", fileError(f, err)
	}
	return "data:" + mediaType + ";base64," + b64, nil
}

// fileError is the error of a file whose inline content cannot be read.
func fileError(f keel.FilePart, err error) error {
	return fmt.Errorf("openai: build request: file %q: %w", f.Filename, err)
}

func chatAssistantMessage(msg keel.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	var a sdk.ChatCompletionAssistantMessageParam
	var text strings.Builder
	for _, part := range msg.Parts {
		switch p := part.(type) {
		case keel.TextPart:
			text.WriteString(p.Text)
		case keel.ToolCallPart:
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: p.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name: p.Name, Arguments: toolArguments(p.Input),
					},
				},
			})
		case keel.FilePart:
			return sdk.ChatCompletionMessageParamUnion{}, refuse("file parts in assistant messages")
		}
	}
	if text.Len() > 0 || len(a.ToolCalls) == 0 {
		a.Content.OfString = param.NewOpt(text.String())
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
}

func toolArguments(input json.RawMessage) string {
	if len(input) == 0 {
		return "{}"
	}
	return string(input)
}

// toolOutputText is a tool result as the text the model reads: a JSON
// string as its value, anything else as JSON.
func toolOutputText(r keel.ToolResultPart) string {
	var s string
	if json.Unmarshal(r.Output, &s) == nil {
		return s
	}
	if len(r.Output) == 0 {
		return "null"
	}
	return string(r.Output)
}

func toolSchema(t keel.ToolDefinition) (map[string]any, error) {
	if len(t.InputSchema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
		return nil, fmt.Errorf("openai: build request: tool %q: input schema is not a JSON object: %w", t.Name, err)
	}
	return schema, nil
}
