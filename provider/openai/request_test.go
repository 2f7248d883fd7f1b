package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

func model(t *testing.T, s *providertest.Server, opts openai.Options) *openai.Model {
	t.Helper()
	if opts.APIKey == "" && opts.ProviderName == "" {
		opts.APIKey = "sk-keel-test"
	}
	opts.BaseURL = s.URL() + "/v1"
	m, err := openai.New("gpt-4o-mini", opts)
	if err != nil {
		t.Fatalf("Got(New) = %v; want a model", err)
	}
	return m
}

func bodyMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("Got(body) = %.200s; want JSON", b)
	}
	return m
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var weatherTool = keel.ToolDefinition{Name: "get_weather", Description: "Weather of a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

func TestChatRequestFields(t *testing.T) {
	tests := []struct {
		name string
		opts openai.Options
		req  keel.Request
		want map[string]string // top-level field → its JSON; "" means absent
	}{
		{"defaults", openai.Options{}, keel.Request{},
			map[string]string{"model": `"gpt-4o-mini"`, "temperature": "", "max_completion_tokens": "", "tool_choice": "", "tools": ""}},
		{"max tokens and temperature", openai.Options{}, keel.Request{MaxOutputTokens: 256, HasTemperature: true, Temperature: 0},
			map[string]string{"max_completion_tokens": "256", "max_tokens": "", "temperature": "0"}},
		{"compatible servers get max_tokens", openai.Options{ProviderName: "ollama"}, keel.Request{MaxOutputTokens: 64},
			map[string]string{"max_tokens": "64", "max_completion_tokens": ""}},
		{"tool choice required", openai.Options{}, keel.Request{Tools: []keel.ToolDefinition{weatherTool}, ToolChoice: "required"},
			map[string]string{"tool_choice": `"required"`,
				"tools": `[{"function":{"description":"Weather of a city.","name":"get_weather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"}},"type":"function"}]`}},
		{"tool choice by name", openai.Options{}, keel.Request{Tools: []keel.ToolDefinition{weatherTool}, ToolChoice: "get_weather"},
			map[string]string{"tool_choice": `{"function":{"name":"get_weather"},"type":"function"}`}},
		{"tool without schema", openai.Options{}, keel.Request{Tools: []keel.ToolDefinition{{Name: "now"}}, ToolChoice: "none"},
			map[string]string{"tool_choice": `"none"`, "tools": `[{"function":{"name":"now","parameters":{"properties":{},"type":"object"}},"type":"function"}]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, chatText("ok"))
			m := model(t, s, tc.opts)
			req := tc.req
			req.Messages = []keel.Message{keel.SystemText("Be brief."), keel.UserText("hi")}
			if _, err := m.Generate(context.Background(), &req); err != nil {
				t.Fatalf("Got(Generate) = %v; want no error", err)
			}
			body := bodyMap(t, s.Requests()[0].Body)
			for field, want := range tc.want {
				v, ok := body[field]
				got := ""
				if ok {
					got = compact(t, v)
				}
				if got != want {
					t.Errorf("Got(%s) = %s; want %s", field, got, want)
				}
			}
			if got := compact(t, body["messages"]); got != `[{"content":"Be brief.","role":"system"},{"content":"hi","role":"user"}]` {
				t.Errorf("Got(messages) = %s; want the system then the user message", got)
			}
		})
	}
}

func TestChatStreamAsksForUsage(t *testing.T) {
	s := providertest.NewServer(t, chatStreamText("a b"))
	m := model(t, s, openai.Options{})
	if c := providertest.Collect(t, m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})); c.Err != nil {
		t.Fatal(c.Err)
	}
	r := s.Requests()[0]
	body := bodyMap(t, r.Body)
	if body["stream"] != true || compact(t, body["stream_options"]) != `{"include_usage":true}` {
		t.Errorf("Got(stream, stream_options) = %v, %v; want true, include_usage", body["stream"], body["stream_options"])
	}
	if got := r.Header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Got(Accept) = %q; want text/event-stream", got)
	}
}

func TestHeadersAndAuth(t *testing.T) {
	s := providertest.NewServer(t, chatText("ok"))
	m := model(t, s, openai.Options{Headers: http.Header{"X-Team": {"keel"}}})
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
		t.Fatal(err)
	}
	h := s.Requests()[0].Header
	if h.Get("Authorization") != "Bearer sk-keel-test" || h.Get("X-Team") != "keel" {
		t.Errorf("Got(Authorization, X-Team) = %q, %q; want the key and the option's header", h.Get("Authorization"), h.Get("X-Team"))
	}
}

func TestToolRoundTripWire(t *testing.T) {
	s := providertest.NewServer(t, chatText("done"))
	m := model(t, s, openai.Options{})
	msgs := []keel.Message{
		keel.UserText("weather?"),
		{Role: keel.RoleAssistant, Parts: []keel.Part{
			keel.TextPart{Text: "Checking."},
			keel.ToolCallPart{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Oslo"}`)},
			keel.ToolCallPart{ID: "call_2", Name: "now"},
		}},
		{Role: keel.RoleTool, Parts: []keel.Part{
			keel.ToolResultPart{CallID: "call_1", Name: "get_weather", Output: json.RawMessage(`{"temp":3}`)},
			keel.ToolResultPart{CallID: "call_2", Name: "now", Output: json.RawMessage(`"tool failed: no clock"`), IsError: true},
		}},
	}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	got := compact(t, bodyMap(t, s.Requests()[0].Body)["messages"])
	want := `[{"content":"weather?","role":"user"},` +
		`{"content":"Checking.","role":"assistant","tool_calls":[{"function":{"arguments":"{\"city\":\"Oslo\"}","name":"get_weather"},"id":"call_1","type":"function"},{"function":{"arguments":"{}","name":"now"},"id":"call_2","type":"function"}]},` +
		`{"content":"{\"temp\":3}","role":"tool","tool_call_id":"call_1"},` +
		`{"content":"tool failed: no clock","role":"tool","tool_call_id":"call_2"}]`
	if got != want {
		t.Errorf("Got(messages) = %s; want %s", got, want)
	}
}

func TestChatFileEncodings(t *testing.T) {
	pdf := []byte("%PDF-1.7 tiny")
	tests := []struct {
		name string
		part keel.FilePart
		want string // the file's content part, as JSON
	}{
		{"pdf by file ID", keel.FilePart{URL: "file-abc123", MediaType: "application/pdf"}, `{"file":{"file_id":"file-abc123"},"type":"file"}`},
		{"unnamed pdf", keel.FilePart{Data: pdf, MediaType: "application/pdf"},
			`{"file":{"file_data":"` + keel.DataURL("application/pdf", pdf) + `","filename":"part-1.pdf"},"type":"file"}`},
		{"mp3", keel.FilePart{Data: []byte("ID3"), MediaType: "audio/mpeg"}, `{"input_audio":{"data":"SUQz","format":"mp3"},"type":"input_audio"}`},
		{"image with parameters", keel.FilePart{Data: []byte("GIF89a"), MediaType: "Image/GIF; x=y"},
			`{"image_url":{"url":"data:image/gif;base64,R0lGODlh"},"type":"image_url"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, chatText("ok"))
			m := model(t, s, openai.Options{})
			msg := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "see"}, tc.part}}
			if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{msg}}); err != nil {
				t.Fatalf("Got(Generate) = %v; want no error", err)
			}
			var body struct {
				Messages []struct {
					Content []json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(s.Requests()[0].Body, &body)
			var part any
			_ = json.Unmarshal(body.Messages[0].Content[1], &part)
			if got := compact(t, part); got != tc.want {
				t.Errorf("Got(part) = %s; want %s", got, tc.want)
			}
		})
	}
}

func TestRefusalsSendNothing(t *testing.T) {
	tests := []struct {
		name string
		api  string
		msg  keel.Message
		want string
	}{
		{"pdf by URL", openai.APIChat, fileMsg(keel.FilePart{URL: "https://example.com/a.pdf", MediaType: "application/pdf"}), "PDF file parts with URLs"},
		{"audio by URL", openai.APIChat, fileMsg(keel.FilePart{URL: "https://example.com/a.wav", MediaType: "audio/wav"}), "audio file parts with URLs"},
		{"other audio", openai.APIChat, fileMsg(keel.FilePart{Data: []byte("OggS"), MediaType: "audio/ogg"}), "audio content parts with media type audio/ogg"},
		{"type as given", openai.APIChat, fileMsg(keel.FilePart{Data: []byte("a,b"), MediaType: "text/csv; charset=utf-8"}), "file part media type text/csv; charset=utf-8"},
		{"no type", openai.APIChat, fileMsg(keel.FilePart{Data: []byte("??")}), "file part media type application/octet-stream"},
		{"image by file ID", openai.APIChat, fileMsg(keel.FilePart{URL: "file-img", MediaType: "image/png"}), "image file parts with file IDs"},
		{"file from the assistant", openai.APIChat, keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{keel.FilePart{Data: []byte("x"), MediaType: "image/png"}}}, "file parts in assistant messages"},
		{"responses docx, PDFs only", openai.APIResponses, fileMsg(keel.FilePart{Data: []byte("PK"), MediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}),
			"file part media type application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, chatText("ok"))
			m := model(t, s, openai.Options{API: tc.api, OnlyPDFDocuments: true})
			_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{tc.msg}})
			var ufe *keel.UnsupportedFunctionalityError
			if !errors.As(err, &ufe) || ufe.Functionality != tc.want {
				t.Errorf("Got(error) = %v; want refusal %q", err, tc.want)
			}
			if n := len(s.Requests()); n != 0 {
				t.Errorf("Got(requests) = %d; want 0", n)
			}
		})
	}
}

func fileMsg(f keel.FilePart) keel.Message {
	return keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "look"}, f}}
}

func TestUndecodableDataIsRefusedBeforeSending(t *testing.T) {
	s := providertest.NewServer(t, chatText("ok"))
	m := model(t, s, openai.Options{})
	msg := fileMsg(keel.FilePart{URL: "data:application/pdf;base64,@@@not-base64@@@", MediaType: "application/pdf"})
	_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{msg}})
	if !errors.Is(err, keel.ErrUndecodableData) || !strings.HasPrefix(err.Error(), "openai: ") {
		t.Errorf("Got(error) = %v; want an openai error wrapping keel.ErrUndecodableData", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("Got(requests) = %d; want 0", n)
	}
}

func TestManyInlineFilesKeepTheirPlaces(t *testing.T) {
	s := providertest.NewServer(t, chatText("ok"))
	m := model(t, s, openai.Options{})
	pdf := []byte(strings.Repeat("%PDF-1.7 page ", 5000))
	png := []byte("\x89PNG\r\n\x1a\nkeel")
	msg := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "keel-inline- is just text here"},
		keel.FilePart{Data: png, MediaType: "image/png"},
		keel.FilePart{Data: pdf, MediaType: "application/pdf", Filename: "big.pdf"},
		keel.FilePart{Data: png, MediaType: "image/png"},
	}}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{msg}}); err != nil {
		t.Fatal(err)
	}
	body := s.Requests()[0].Body
	files := chatSentFiles(t, body)
	if len(files) != 3 || string(files[0].Data) != string(png) || string(files[1].Data) != string(pdf) ||
		files[1].Name != "big.pdf" || string(files[2].Data) != string(png) {
		t.Errorf("Got(files) = %d files; want png, big.pdf, png intact", len(files))
	}
	if got := chatSentText(t, body); len(got) != 1 || got[0] != "keel-inline- is just text here" {
		t.Errorf("Got(text) = %q; want the text untouched", got)
	}
}

func TestResponsesRequest(t *testing.T) {
	s := providertest.NewServer(t, responsesText("ok"))
	m := model(t, s, openai.Options{API: openai.APIResponses})
	msgs := []keel.Message{
		keel.SystemText("Be brief."),
		fileMsg(keel.FilePart{URL: "https://example.com/a.pdf", MediaType: "application/pdf"}),
		{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "call_1", Name: "get_weather", Input: json.RawMessage(`{"city":"Oslo"}`)}}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "call_1", Name: "get_weather", Output: json.RawMessage(`"cold"`)}}},
	}
	req := &keel.Request{Messages: msgs, Tools: []keel.ToolDefinition{weatherTool}, ToolChoice: "get_weather", MaxOutputTokens: 99}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := bodyMap(t, s.Requests()[0].Body)
	want := map[string]string{
		"input": `[{"content":"Be brief.","role":"system"},` +
			`{"content":[{"text":"look","type":"input_text"},{"file_url":"https://example.com/a.pdf","type":"input_file"}],"role":"user"},` +
			`{"arguments":"{\"city\":\"Oslo\"}","call_id":"call_1","name":"get_weather","type":"function_call"},` +
			`{"call_id":"call_1","output":"cold","type":"function_call_output"}]`,
		"tool_choice":       `{"name":"get_weather","type":"function"}`,
		"max_output_tokens": "99",
		"tools":             `[{"description":"Weather of a city.","name":"get_weather","parameters":{"properties":{"city":{"type":"string"}},"type":"object"},"strict":false,"type":"function"}]`,
	}
	for field, w := range want {
		if got := compact(t, body[field]); got != w {
			t.Errorf("Got(%s) = %s; want %s", field, got, w)
		}
	}
}

func TestResponsesPassThroughNamesUnnamedDocuments(t *testing.T) {
	s := providertest.NewServer(t, responsesText("ok"))
	m := model(t, s, openai.Options{API: openai.APIResponses, OnlyPDFDocuments: false})
	msg := fileMsg(keel.FilePart{Data: []byte("PK\x03\x04"), MediaType: providertest.XLSX})
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{msg}}); err != nil {
		t.Fatal(err)
	}
	files := responsesSentFiles(t, s.Requests()[0].Body)
	if len(files) != 1 || files[0].Name != "part-1.xlsx" || files[0].MediaType != providertest.XLSX {
		t.Errorf("Got(files) = %+v; want one input_file part-1.xlsx", files)
	}
}

// Some compatible servers stream each tool call whole, every one at index
// 0; each new ID is a new call, in the order they came.
func TestStreamWholeToolCallsAtIndexZero(t *testing.T) {
	call := func(id, args string) string {
		return chatChunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "id": id, "type": "function", "function": map[string]any{"name": "get_weather", "arguments": args}}}}, nil)
	}
	s := providertest.NewServer(t, sse(append([]string{call("a", `{"city":"Oslo"}`), call("b", `{"city":"Rome"}`), call("c", `{"city":"Lima"}`)}, chatTail("tool_calls")...)...))
	m := model(t, s, openai.Options{ProviderName: "ollama"})
	c := providertest.Collect(t, m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
	var got []string
	for _, tc := range c.ToolCalls {
		got = append(got, tc.ID+" "+string(tc.Input))
	}
	want := []string{`a {"city":"Oslo"}`, `b {"city":"Rome"}`, `c {"city":"Lima"}`}
	if c.Err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Got(tool calls) = %q, %v; want %q", got, c.Err, want)
	}
}

// A data: URL in standard base64 goes on as it is; any other base64 is
// decoded and encoded again, so the API always gets standard base64.
func TestDataURLBase64Forms(t *testing.T) {
	data := []byte{0xfb, 0xff, 0xfe, 'p', 'd', 'f', 0x00}
	tests := []struct{ name, url string }{
		{"standard", "data:application/pdf;base64,+//+cGRmAA=="},
		{"url-safe unpadded", "data:application/pdf;base64,-__-cGRmAA"},
		{"other type in the URL", "data:application/octet-stream;base64,+//+cGRmAA=="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, chatText("ok"))
			m := model(t, s, openai.Options{})
			msg := fileMsg(keel.FilePart{URL: tc.url, MediaType: "application/pdf", Filename: "a.pdf"})
			if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{msg}}); err != nil {
				t.Fatal(err)
			}
			body := string(s.Requests()[0].Body)
			if want := `"file_data":"data:application/pdf;base64,+//+cGRmAA=="`; !strings.Contains(body, want) {
				t.Errorf("Got(body) = %s; want it to contain %s", body, want)
			}
			if files := chatSentFiles(t, s.Requests()[0].Body); len(files) != 1 || string(files[0].Data) != string(data) {
				t.Errorf("Got(files) = %+v; want the original bytes", files)
			}
		})
	}
}
