package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

// buildParams turns a keel request into the Messages API's parameters. It
// is where every refusal happens, so a refused request sends nothing.
//
// Inline file content is registered with files, and the parameters hold
// placeholders for it.
func buildParams(model string, req *keel.Request, files *inline.Files) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: DefaultMaxOutputTokens,
	}
	if req.MaxOutputTokens > 0 {
		p.MaxTokens = int64(req.MaxOutputTokens)
	}
	if req.HasTemperature {
		// The SDK's typed parameters no longer carry temperature; the API
		// still reads it.
		p.SetExtraFields(map[string]any{"temperature": req.Temperature})
	}
	for i, msg := range req.Messages {
		if err := addMessage(&p, msg, files); err != nil {
			var unsupported *keel.UnsupportedFunctionalityError
			if errors.As(err, &unsupported) {
				// Processors match the refusal by type; keep it bare.
				return anthropic.MessageNewParams{}, err
			}
			return anthropic.MessageNewParams{}, fmt.Errorf("anthropic: build request: message %d: %w", i, err)
		}
	}
	if len(req.Tools) > 0 {
		tools, err := toolParams(req.Tools)
		if err != nil {
			return anthropic.MessageNewParams{}, err
		}
		p.Tools = tools
		p.ToolChoice = toolChoice(req.ToolChoice)
	}
	return p, nil
}

// addMessage appends msg to p. System messages go to the system
// instructions wherever they appear; tool results travel in user messages;
// consecutive messages of one role are merged, since the API expects the
// roles to alternate. A message with nothing to send is dropped: the API
// rejects empty content.
func addMessage(p *anthropic.MessageNewParams, msg keel.Message, files *inline.Files) error {
	switch msg.Role {
	case keel.RoleSystem:
		for _, part := range msg.Parts {
			if t, ok := part.(keel.TextPart); ok && t.Text != "" {
				p.System = append(p.System, anthropic.TextBlockParam{Text: t.Text})
			}
		}
		return nil
	case keel.RoleUser, keel.RoleTool:
		blocks, err := userBlocks(msg.Parts, files)
		if err != nil || len(blocks) == 0 {
			return err
		}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].OfUser != nil {
			last := p.Messages[n-1].OfUser
			last.Content = append(last.Content, blocks...)
			return nil
		}
		p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		return nil
	case keel.RoleAssistant:
		blocks, err := assistantBlocks(msg.Parts)
		if err != nil || len(blocks) == 0 {
			return err
		}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].OfAssistant != nil {
			last := p.Messages[n-1].OfAssistant
			last.Content = append(last.Content, blocks...)
			return nil
		}
		p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		return nil
	default:
		return fmt.Errorf("unknown role %q", msg.Role)
	}
}

// userBlocks converts the parts of a user or tool message.
func userBlocks(parts []keel.Part, files *inline.Files) ([]anthropic.ContentBlockParamUnion, error) {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(parts))
	for _, part := range parts {
		switch part := part.(type) {
		case keel.TextPart:
			if part.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
			}
		case keel.FilePart:
			b, err := fileBlock(part, files)
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		case keel.ToolResultPart:
			blocks = append(blocks, toolResultBlock(part))
		case keel.ToolCallPart:
			return nil, errors.New("tool call in a user message")
		}
	}
	return blocks, nil
}

// assistantBlocks converts the parts of an assistant message.
func assistantBlocks(parts []keel.Part) ([]anthropic.ContentBlockParamUnion, error) {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(parts))
	for _, part := range parts {
		switch part := part.(type) {
		case keel.TextPart:
			if part.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
			}
		case keel.ToolCallPart:
			input := part.Input
			if len(input) == 0 {
				input = json.RawMessage("{}")
			} else if !json.Valid(input) {
				return nil, fmt.Errorf("tool call %s: input is not valid JSON", part.ID)
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(part.ID, input, part.Name))
		case keel.FilePart:
			// The API reads files only from the user.
			return nil, &keel.UnsupportedFunctionalityError{Functionality: "file parts in assistant messages"}
		case keel.ToolResultPart:
			return nil, errors.New("tool result in an assistant message")
		}
	}
	return blocks, nil
}

// toolResultBlock sends a tool's output as text: a JSON string unquoted,
// any other JSON value as written.
func toolResultBlock(part keel.ToolResultPart) anthropic.ContentBlockParamUnion {
	text := string(part.Output)
	var s string
	if json.Unmarshal(part.Output, &s) == nil {
		text = s
	}
	block := anthropic.ToolResultBlockParam{ToolUseID: part.CallID}
	if text != "" {
		block.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: text}}}
	}
	if part.IsError {
		block.IsError = param.NewOpt(true)
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &block}
}

// toolParams converts tool definitions. The schema is sent as given, so
// keywords the SDK's typed schema does not name survive.
func toolParams(defs []keel.ToolDefinition) ([]anthropic.ToolUnionParam, error) {
	tools := make([]anthropic.ToolUnionParam, 0, len(defs))
	for _, d := range defs {
		if d.Name == "" {
			return nil, errors.New("anthropic: build request: tool with an empty name")
		}
		schema := anthropic.ToolInputSchemaParam{Properties: map[string]any{}}
		if len(d.InputSchema) > 0 {
			if !json.Valid(d.InputSchema) {
				return nil, fmt.Errorf("anthropic: build request: tool %q: input schema is not valid JSON", d.Name)
			}
			schema = param.Override[anthropic.ToolInputSchemaParam](d.InputSchema)
		}
		t := anthropic.ToolParam{Name: d.Name, InputSchema: schema}
		if d.Description != "" {
			t.Description = param.NewOpt(d.Description)
		}
		tools = append(tools, anthropic.ToolUnionParam{OfTool: &t})
	}
	return tools, nil
}

// toolChoice maps keel's tool choice: "" leaves the API's default (auto),
// "required" is Anthropic's "any", and any other value than auto and none
// names a tool.
func toolChoice(choice string) anthropic.ToolChoiceUnionParam {
	switch choice {
	case "":
		return anthropic.ToolChoiceUnionParam{}
	case "auto":
		return anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{}}
	case "none":
		return anthropic.ToolChoiceUnionParam{OfNone: &anthropic.ToolChoiceNoneParam{}}
	case "required":
		return anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{}}
	default:
		return anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: choice}}
	}
}
