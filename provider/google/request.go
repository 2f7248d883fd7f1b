package google

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
	"google.golang.org/genai"
)

// ErrInvalidRequest is wrapped by the errors of requests the adapter
// cannot turn into a Gemini request (a tool input that is not a JSON
// object, a schema that is not JSON, ...). Nothing is sent for them.
var ErrInvalidRequest = errors.New("invalid request")

// toolChoice modes, as keel names them.
const (
	choiceAuto     = "auto"
	choiceNone     = "none"
	choiceRequired = "required"
)

// request is one Gemini call built from a keel request: the SDK's
// contents and config, and the inline files whose base64 the transport
// writes into the body itself.
type request struct {
	contents []*genai.Content
	config   *genai.GenerateContentConfig
	files    *inline.Files
}

// buildRequest turns req into a Gemini request. It sends nothing, and
// fails with an error wrapping [ErrInvalidRequest] or
// [keel.ErrUndecodableData] for a request it cannot send.
func (m *Model) buildRequest(req *keel.Request) (*request, error) {
	out := &request{
		config: &genai.GenerateContentConfig{
			// The SDK would otherwise send follow-up requests on its own;
			// one keel call is one HTTP request.
			AutomaticContinuation: genai.Ptr(false),
		},
		files: inline.New(),
	}
	names := make(map[string]string) // tool call ID → tool name
	for i, msg := range req.Messages {
		if msg.Role == keel.RoleSystem {
			if err := addSystem(out.config, msg); err != nil {
				return nil, fmt.Errorf("google: build request: message %d: %w: %v", i, ErrInvalidRequest, err)
			}
			continue
		}
		role := genai.RoleUser
		if msg.Role == keel.RoleAssistant {
			role = genai.RoleModel
		}
		var parts []*genai.Part
		signed := false
		for j, p := range msg.Parts {
			part, err := m.buildPart(p, out.files, names, &signed)
			if err != nil {
				return nil, fmt.Errorf("google: build request: message %d part %d: %w", i, j, err)
			}
			if part != nil {
				parts = append(parts, part)
			}
		}
		if len(parts) == 0 {
			continue
		}
		// Gemini wants the answers to parallel calls in one content, and
		// reads consecutive contents of one role as one turn anyway.
		if n := len(out.contents); n > 0 && out.contents[n-1].Role == role {
			out.contents[n-1].Parts = append(out.contents[n-1].Parts, parts...)
			continue
		}
		out.contents = append(out.contents, &genai.Content{Role: role, Parts: parts})
	}
	if err := addTools(out.config, req); err != nil {
		return nil, err
	}
	if req.MaxOutputTokens > 0 {
		out.config.MaxOutputTokens = int32(req.MaxOutputTokens)
	}
	if req.HasTemperature {
		out.config.Temperature = genai.Ptr(float32(req.Temperature))
	}
	if len(req.Headers) > 0 {
		h := make(map[string][]string, len(req.Headers))
		for k, v := range req.Headers {
			h[k] = []string{v}
		}
		out.config.HTTPOptions = &genai.HTTPOptions{Headers: h}
	}
	return out, nil
}

func addSystem(cfg *genai.GenerateContentConfig, msg keel.Message) error {
	for _, p := range msg.Parts {
		t, ok := p.(keel.TextPart)
		if !ok {
			return fmt.Errorf("a system message holds a %s part; Gemini's system instruction takes text only", p.PartType())
		}
		if t.Text == "" {
			continue
		}
		if cfg.SystemInstruction == nil {
			cfg.SystemInstruction = &genai.Content{Role: genai.RoleUser}
		}
		cfg.SystemInstruction.Parts = append(cfg.SystemInstruction.Parts, &genai.Part{Text: t.Text})
	}
	return nil
}

// buildPart returns the Gemini part for p, or nil for a part with nothing
// to send (empty text). signed tells whether the content already carries
// a thought signature: Gemini wants one on the first function call of a
// step only.
func (m *Model) buildPart(p keel.Part, files *inline.Files, names map[string]string, signed *bool) (*genai.Part, error) {
	switch p := p.(type) {
	case keel.TextPart:
		if p.Text == "" {
			return nil, nil
		}
		return &genai.Part{Text: p.Text}, nil
	case keel.FilePart:
		return filePart(p, files)
	case keel.ToolCallPart:
		args, err := toolArgs(p.Input)
		if err != nil {
			return nil, fmt.Errorf("%w: tool call %q (%s): %v", ErrInvalidRequest, p.ID, p.Name, err)
		}
		names[p.ID] = p.Name
		part := &genai.Part{FunctionCall: &genai.FunctionCall{ID: p.ID, Name: p.Name, Args: args}}
		if !*signed {
			part.ThoughtSignature = m.sigs.signatureFor(p.ID)
			*signed = true
		}
		return part, nil
	case keel.ToolResultPart:
		name := p.Name
		if name == "" {
			name = names[p.CallID]
		}
		resp, err := toolResponse(p)
		if err != nil {
			return nil, fmt.Errorf("%w: tool result %q (%s): %v", ErrInvalidRequest, p.CallID, name, err)
		}
		return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: p.CallID, Name: name, Response: resp}}, nil
	}
	return nil, fmt.Errorf("%w: unknown part type %q", ErrInvalidRequest, p.PartType())
}

// filePart sends inline content as inlineData and everything else (http(s)
// URLs, Gemini file URIs) as fileData. Gemini refuses nothing up front:
// the API itself answers the types it does not read.
func filePart(f keel.FilePart, files *inline.Files) (*genai.Part, error) {
	mediaType := inline.OrOctetStream(inline.MediaType(f))
	if !f.IsInline() {
		return &genai.Part{FileData: &genai.FileData{FileURI: f.URL, MIMEType: mediaType}}, nil
	}
	data, err := files.Bytes(f)
	if err != nil {
		return nil, fmt.Errorf("file %q: %w", f.Filename, err)
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: mediaType, Data: data}}, nil
}

// toolArgs decodes a tool call's input, which Gemini takes as an object.
func toolArgs(input json.RawMessage) (map[string]any, error) {
	if len(input) == 0 {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil {
		return nil, fmt.Errorf("input is not a JSON object: %v", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

// toolResponse gives a tool's output as the object Gemini's
// functionResponse.response must be: an object output as is, anything else
// under "result"; a failure under "error", so the model can tell.
func toolResponse(p keel.ToolResultPart) (map[string]any, error) {
	var v any
	if len(p.Output) > 0 {
		if err := json.Unmarshal(p.Output, &v); err != nil {
			return nil, fmt.Errorf("output is not JSON: %v", err)
		}
	}
	if p.IsError {
		return map[string]any{"error": v}, nil
	}
	if obj, ok := v.(map[string]any); ok {
		return obj, nil
	}
	return map[string]any{"result": v}, nil
}

func addTools(cfg *genai.GenerateContentConfig, req *keel.Request) error {
	if len(req.Tools) == 0 {
		return nil
	}
	decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
	for _, t := range req.Tools {
		d := &genai.FunctionDeclaration{Name: t.Name, Description: t.Description}
		if len(t.InputSchema) > 0 {
			if !json.Valid(t.InputSchema) {
				return fmt.Errorf("google: build request: tool %q: %w: input schema is not JSON", t.Name, ErrInvalidRequest)
			}
			d.ParametersJsonSchema = t.InputSchema
		}
		decls = append(decls, d)
	}
	cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	var fc *genai.FunctionCallingConfig
	switch req.ToolChoice {
	case "", choiceAuto:
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}
	case choiceNone:
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}
	case choiceRequired:
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}
	default:
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{req.ToolChoice}}
	}
	cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
	return nil
}
