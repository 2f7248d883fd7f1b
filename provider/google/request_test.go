package google_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
)

// sent sends req once and returns the body the server received.
func sent(t *testing.T, req *keel.Request) (googletest.Body, map[string]any) {
	t.Helper()
	srv := googletest.NewServer(t, googletest.Options{})
	m := newModel(t, srv.URL())
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("Got(requests) = %d; want 1", len(reqs))
	}
	var raw map[string]any
	if err := json.Unmarshal(reqs[0].Body, &raw); err != nil {
		t.Fatal(err)
	}
	return decode(t, reqs[0].Body), raw
}

func TestToolChoice(t *testing.T) {
	tools := []keel.ToolDefinition{{Name: "lookup", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	tests := []struct {
		choice, mode string
		allowed      []any
	}{
		{"", "AUTO", nil},
		{"auto", "AUTO", nil},
		{"none", "NONE", nil},
		{"required", "ANY", nil},
		{"lookup", "ANY", []any{"lookup"}},
	}
	for _, tt := range tests {
		t.Run(tt.choice, func(t *testing.T) {
			_, raw := sent(t, &keel.Request{Messages: []keel.Message{keel.UserText("hi")}, Tools: tools, ToolChoice: tt.choice})
			fc := raw["toolConfig"].(map[string]any)["functionCallingConfig"].(map[string]any)
			if fc["mode"] != tt.mode {
				t.Errorf("Got(mode) = %v; want %s", fc["mode"], tt.mode)
			}
			got, _ := fc["allowedFunctionNames"].([]any)
			if !slices.Equal(got, tt.allowed) {
				t.Errorf("Got(allowedFunctionNames) = %v; want %v", got, tt.allowed)
			}
		})
	}
}

func TestGenerationConfig(t *testing.T) {
	_, raw := sent(t, &keel.Request{
		Messages:        []keel.Message{keel.UserText("hi")},
		MaxOutputTokens: 256, Temperature: 0, HasTemperature: true,
	})
	gc := raw["generationConfig"].(map[string]any)
	if gc["maxOutputTokens"] != float64(256) || gc["temperature"] != float64(0) {
		t.Errorf("Got(generationConfig) = %v; want maxOutputTokens 256, temperature 0", gc)
	}
	_, raw = sent(t, &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
	if gc, _ := raw["generationConfig"].(map[string]any); gc["temperature"] != nil || gc["maxOutputTokens"] != nil {
		t.Errorf("Got(generationConfig) = %v; want no temperature nor max tokens", gc)
	}
}

// TestHistory checks roles, merged turns, system instructions, tool
// results wrapped as objects, and IDs sent back.
func TestHistory(t *testing.T) {
	body, _ := sent(t, &keel.Request{Messages: []keel.Message{
		keel.SystemText("Be brief."),
		keel.UserText("Look up a and b"),
		{Role: keel.RoleAssistant, Parts: []keel.Part{
			keel.TextPart{Text: "Looking."},
			keel.ToolCallPart{ID: "c1", Name: "lookup", Input: json.RawMessage(`{"q":"a"}`)},
			keel.ToolCallPart{ID: "c2", Name: "lookup", Input: json.RawMessage(`{"q":"b"}`)},
		}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c1", Name: "lookup", Output: json.RawMessage(`{"found":true}`)}}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c2", Output: json.RawMessage(`"boom"`), IsError: true}}},
		keel.SystemText("Answer in French."),
		keel.UserText(""),
	}})
	if body.SystemInstruction == nil || len(body.SystemInstruction.Parts) != 2 ||
		body.SystemInstruction.Parts[0].Text != "Be brief." || body.SystemInstruction.Parts[1].Text != "Answer in French." {
		t.Errorf("Got(systemInstruction) = %+v; want both system texts", body.SystemInstruction)
	}
	roles := make([]string, len(body.Contents))
	for i, c := range body.Contents {
		roles[i] = c.Role
	}
	if want := []string{"user", "model", "user"}; !slices.Equal(roles, want) {
		t.Fatalf("Got(roles) = %v; want %v (tool results merged, empty text dropped)", roles, want)
	}
	model := body.Contents[1].Parts
	if len(model) != 3 || model[0].Text != "Looking." || model[1].FunctionCall == nil || model[1].FunctionCall.ID != "c1" ||
		string(model[2].FunctionCall.Args) != `{"q":"b"}` {
		t.Errorf("Got(model turn) = %+v; want text and two calls", model)
	}
	sig, _ := base64.StdEncoding.DecodeString(model[1].ThoughtSignature)
	if string(sig) != google.SkipThoughtSignature || model[2].ThoughtSignature != "" {
		t.Errorf("Got(thought signatures) = %q, %q; want %q on the first call only", sig, model[2].ThoughtSignature, google.SkipThoughtSignature)
	}
	results := body.Contents[2].Parts
	if len(results) != 2 {
		t.Fatalf("Got(tool results) = %+v; want 2 in one turn", results)
	}
	for i, want := range []struct{ id, name, response string }{
		{"c1", "lookup", `{"found":true}`},
		{"c2", "lookup", `{"error":"boom"}`},
	} {
		fr := results[i].FunctionResponse
		if fr == nil || fr.ID != want.id || fr.Name != want.name || string(fr.Response) != want.response {
			t.Errorf("Got(function response %d) = %+v; want %+v", i, fr, want)
		}
	}
}

func TestToolResultWrapping(t *testing.T) {
	tests := []struct{ output, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`"text"`, `{"result":"text"}`},
		{`[1,2]`, `{"result":[1,2]}`},
		{`42`, `{"result":42}`},
		{`null`, `{"result":null}`},
		{``, `{"result":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.output, func(t *testing.T) {
			body, _ := sent(t, &keel.Request{Messages: []keel.Message{
				keel.UserText("go"),
				{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "c", Name: "f"}}},
				{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c", Name: "f", Output: json.RawMessage(tt.output)}}},
			}})
			got := string(body.Contents[2].Parts[0].FunctionResponse.Response)
			if got != tt.want {
				t.Errorf("Got(response for %q) = %s; want %s", tt.output, got, tt.want)
			}
			if args := string(body.Contents[1].Parts[0].FunctionCall.Args); args != "" && args != "{}" {
				t.Errorf("Got(args of a call without input) = %s; want {}", args)
			}
		})
	}
}

// TestFileEncodings checks how each kind of file part travels.
func TestFileEncodings(t *testing.T) {
	pdf := []byte("%PDF-1.4 tiny")
	tests := []struct {
		name                string
		part                keel.FilePart
		mediaType, encoding string
		data                []byte
		url                 string
	}{
		{"bytes", keel.FilePart{Data: pdf, MediaType: "application/pdf"}, "application/pdf", "base64", pdf, ""},
		{"parameters dropped", keel.FilePart{Data: []byte("a,b"), MediaType: "Text/CSV; charset=utf-8"}, "text/csv", "base64", []byte("a,b"), ""},
		{"data URL type used", keel.FilePart{URL: keel.DataURL("image/png", []byte("png"))}, "image/png", "base64", []byte("png"), ""},
		{"no type", keel.FilePart{Data: []byte{1, 2}}, "application/octet-stream", "base64", []byte{1, 2}, ""},
		{"http URL", keel.FilePart{URL: "https://example.com/a.pdf", MediaType: "application/pdf"}, "application/pdf", "url", nil, "https://example.com/a.pdf"},
		{"Gemini file", keel.FilePart{URL: "https://generativelanguage.googleapis.com/v1beta/files/abc", MediaType: "video/mp4"}, "video/mp4", "url", nil, "https://generativelanguage.googleapis.com/v1beta/files/abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := sent(t, &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{tt.part}}}})
			files, err := body.Files()
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 1 {
				t.Fatalf("Got(files) = %+v; want 1", files)
			}
			f := files[0]
			if f.MediaType != tt.mediaType || f.Encoding != tt.encoding || string(f.Data) != string(tt.data) || f.URL != tt.url {
				t.Errorf("Got(file) = %+v; want %s %s %q %q", f, tt.mediaType, tt.encoding, tt.data, tt.url)
			}
		})
	}
}

// TestManyInlineFiles checks several inline files, in several turns, each
// arrive intact and in place.
func TestManyInlineFiles(t *testing.T) {
	var parts []keel.Part
	var want [][]byte
	for i := range 5 {
		data := make([]byte, 1000*i+1)
		for j := range data {
			data[j] = byte(i*7 + j)
		}
		want = append(want, data)
		parts = append(parts, keel.TextPart{Text: "file"}, keel.FilePart{Data: data, MediaType: "application/pdf"})
	}
	body, _ := sent(t, &keel.Request{Messages: []keel.Message{
		{Role: keel.RoleUser, Parts: parts[:4]},
		{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "ok"}}},
		{Role: keel.RoleUser, Parts: parts[4:]},
	}})
	files, err := body.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("Got(files) = %d; want %d", len(files), len(want))
	}
	for i, f := range files {
		if string(f.Data) != string(want[i]) {
			t.Errorf("Got(file %d) = %d bytes; want its %d original bytes", i, len(f.Data), len(want[i]))
		}
	}
}

// TestBadRequestsSendNothing checks requests the adapter cannot build
// fail with a clear error before anything is sent.
func TestBadRequestsSendNothing(t *testing.T) {
	tests := []struct {
		name string
		req  *keel.Request
		is   error
	}{
		{"undecodable data URL", &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
			keel.FilePart{URL: "data:application/pdf;base64,%%%", Filename: "a.pdf"}}}}}, keel.ErrUndecodableData},
		{"tool input not an object", &keel.Request{Messages: []keel.Message{{Role: keel.RoleAssistant, Parts: []keel.Part{
			keel.ToolCallPart{ID: "c", Name: "f", Input: json.RawMessage(`[1]`)}}}}}, google.ErrInvalidRequest},
		{"tool output not JSON", &keel.Request{Messages: []keel.Message{{Role: keel.RoleTool, Parts: []keel.Part{
			keel.ToolResultPart{CallID: "c", Name: "f", Output: json.RawMessage(`nope`)}}}}}, google.ErrInvalidRequest},
		{"schema not JSON", &keel.Request{Messages: []keel.Message{keel.UserText("hi")},
			Tools: []keel.ToolDefinition{{Name: "f", InputSchema: json.RawMessage(`{`)}}}, google.ErrInvalidRequest},
		{"file in a system message", &keel.Request{Messages: []keel.Message{{Role: keel.RoleSystem, Parts: []keel.Part{
			keel.FilePart{Data: []byte("x"), MediaType: "text/plain"}}}}}, google.ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := googletest.NewServer(t, googletest.Options{})
			m := newModel(t, srv.URL())
			_, gerr := m.Generate(context.Background(), tt.req)
			var serr error
			for _, err := range m.Stream(context.Background(), tt.req) {
				serr = err
			}
			for name, err := range map[string]error{"generate": gerr, "stream": serr} {
				if !errors.Is(err, tt.is) {
					t.Errorf("Got(%s error) = %v; want %v", name, err, tt.is)
				}
				var api *keel.APICallError
				if errors.As(err, &api) {
					t.Errorf("Got(%s error) = APICallError %v; want a request error", name, err)
				}
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("Got(requests) = %d; want 0", n)
			}
		})
	}
}
