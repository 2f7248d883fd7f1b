package openai

import (
	"fmt"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// responsesParams builds the Responses API request. As for Chat
// Completions, file contents go to files as placeholders and refusals
// happen here, before anything is sent.
func (m *Model) responsesParams(req *keel.Request, files *inline.Files) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: m.name}
	var items responses.ResponseInputParam
	for _, msg := range req.Messages {
		switch msg.Role {
		case keel.RoleSystem:
			if t := msg.Text(); t != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(t, responses.EasyInputMessageRoleSystem))
			}
		case keel.RoleUser:
			content, err := m.responsesUserContent(msg, files)
			if err != nil {
				return p, err
			}
			items = append(items, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		case keel.RoleAssistant:
			var text strings.Builder
			var calls responses.ResponseInputParam
			for _, part := range msg.Parts {
				switch pt := part.(type) {
				case keel.TextPart:
					text.WriteString(pt.Text)
				case keel.ToolCallPart:
					calls = append(calls, responses.ResponseInputItemParamOfFunctionCall(toolArguments(pt.Input), pt.ID, pt.Name))
				case keel.FilePart:
					return p, refuse("file parts in assistant messages")
				}
			}
			if text.Len() > 0 {
				items = append(items, responses.ResponseInputItemParamOfMessage(text.String(), responses.EasyInputMessageRoleAssistant))
			}
			items = append(items, calls...)
		case keel.RoleTool:
			for _, part := range msg.Parts {
				if r, ok := part.(keel.ToolResultPart); ok {
					out := responses.ResponseInputItemParamOfFunctionCallOutput(toolOutputText(r))
					out.OfFunctionCallOutput.CallID = param.NewOpt(r.CallID)
					items = append(items, out)
				}
			}
			if returned, ok := toolFiles(msg); ok {
				content, err := m.responsesUserContent(returned, files)
				if err != nil {
					return p, err
				}
				items = append(items, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
			}
		default:
			return p, fmt.Errorf("openai: build request: unknown role %q", msg.Role)
		}
	}
	p.Input.OfInputItemList = items
	for _, t := range req.Tools {
		schema, err := toolSchema(t)
		if err != nil {
			return p, err
		}
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	switch c := req.ToolChoice; c {
	case "":
	case "auto", "none", "required":
		p.ToolChoice.OfToolChoiceMode = param.NewOpt(responses.ToolChoiceOptions(c))
	default:
		p.ToolChoice.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: c}
	}
	if req.MaxOutputTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxOutputTokens))
	}
	if req.HasTemperature {
		p.Temperature = param.NewOpt(req.Temperature)
	}
	return p, nil
}

func (m *Model) responsesUserContent(msg keel.Message, files *inline.Files) (responses.ResponseInputMessageContentListParam, error) {
	content := make(responses.ResponseInputMessageContentListParam, 0, len(msg.Parts))
	for i, part := range msg.Parts {
		switch p := part.(type) {
		case keel.TextPart:
			content = append(content, responses.ResponseInputContentParamOfInputText(p.Text))
		case keel.FilePart:
			c, err := m.responsesFilePart(p, i, files)
			if err != nil {
				return nil, err
			}
			content = append(content, c)
		default:
			return nil, fmt.Errorf("openai: build request: a user message cannot hold a %s part", part.PartType())
		}
	}
	return content, nil
}

// responsesFilePart encodes a file for the Responses API: images as
// input_image, PDFs (and, when passing documents through, any other type
// but audio and video) as input_file.
func (m *Model) responsesFilePart(f keel.FilePart, index int, files *inline.Files) (responses.ResponseInputContentUnionParam, error) {
	var none responses.ResponseInputContentUnionParam
	mt := inline.MediaType(f)
	if strings.HasPrefix(mt, "image/") {
		if !m.takesImage(mt) {
			return none, refuseType("image part media type ", f)
		}
		img := &responses.ResponseInputImageParam{Detail: responses.ResponseInputImageDetailAuto}
		switch f.Source() {
		case keel.SourceHTTP:
			img.ImageURL = param.NewOpt(f.URL)
		case keel.SourceReference:
			img.FileID = param.NewOpt(f.URL)
		default:
			u, err := dataURL(files, f, mt)
			if err != nil {
				return none, err
			}
			img.ImageURL = param.NewOpt(u)
		}
		return responses.ResponseInputContentUnionParam{OfInputImage: img}, nil
	}
	// Audio and video are not documents: input_file does not take them,
	// passed through or not.
	media := strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/")
	if mt != "application/pdf" && (!m.passThrough || media) {
		return none, refuseType("file part media type ", f)
	}
	file := &responses.ResponseInputFileParam{}
	switch f.Source() {
	case keel.SourceHTTP:
		file.FileURL = param.NewOpt(f.URL)
	case keel.SourceReference:
		file.FileID = param.NewOpt(f.URL)
	default:
		name := f.Filename
		if name == "" {
			name = fmt.Sprintf("part-%d%s", index, extensionOf(mt))
		}
		u, err := dataURL(files, f, inline.OrOctetStream(mt))
		if err != nil {
			return none, err
		}
		file.FileData = param.NewOpt(u)
		file.Filename = param.NewOpt(name)
	}
	return responses.ResponseInputContentUnionParam{OfInputFile: file}, nil
}

// extensionOf names an unnamed document after its type, since the
// Responses API reads a file's type from its name.
func extensionOf(mt string) string {
	if ext := keel.ExtensionOf(mt); ext != "" {
		return "." + ext
	}
	return ""
}
