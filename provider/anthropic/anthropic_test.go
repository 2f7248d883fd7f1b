package anthropic_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/providertest"
)

func TestNewNeedsAKey(t *testing.T) {
	t.Setenv(anthropic.EnvAPIKey, "")
	_, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{})
	if !errors.Is(err, anthropic.ErrMissingAPIKey) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("Got(New without a key) = %v; want ErrMissingAPIKey naming ANTHROPIC_API_KEY", err)
	}
	if _, err := anthropic.New("", anthropic.Options{APIKey: "k"}); err == nil {
		t.Errorf("Got(New with no model) = nil; want an error")
	}
}

func TestNewReadsTheEnvironment(t *testing.T) {
	env := providertest.NewServer(t, providertest.Reply{Body: textBody("from env")})
	opt := providertest.NewServer(t, providertest.Reply{Body: textBody("from options")})
	t.Setenv(anthropic.EnvAPIKey, "sk-ant-env")
	t.Setenv(anthropic.EnvBaseURL, env.URL())
	tests := []struct {
		name    string
		opts    anthropic.Options
		server  *providertest.Server
		wantKey string
	}{
		{"environment", anthropic.Options{}, env, "Bearer sk-ant-env"},
		{"options win", anthropic.Options{APIKey: "sk-ant-opt", BaseURL: opt.URL()}, opt, "Bearer sk-ant-opt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := anthropic.New("claude-sonnet-4-5", tc.opts)
			if err != nil {
				t.Fatalf("Got(New) = %v; want a model", err)
			}
			if m.Provider() != "anthropic" || m.Name() != "claude-sonnet-4-5" {
				t.Errorf("Got(Provider, Name) = %q, %q; want anthropic, claude-sonnet-4-5", m.Provider(), m.Name())
			}
			before := len(tc.server.Requests())
			if _, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}); err != nil {
				t.Fatalf("Got(Generate) = %v; want no error", err)
			}
			reqs := tc.server.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("Got(requests at %s) = %d; want %d", tc.name, len(reqs), before+1)
			}
			if got := reqs[len(reqs)-1].Header.Get("Authorization"); got != tc.wantKey {
				t.Errorf("Got(Authorization) = %q; want %q", got, tc.wantKey)
			}
		})
	}
}

func TestResponseParts(t *testing.T) {
	const body = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"text","text":"Two lookups."},{"type":"tool_use","id":"toolu_a","name":"find","input":{"q":"a"}},{"type":"tool_use","id":"toolu_b","name":"find","input":{"q":"b"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":9}}`
	s := providertest.NewServer(t, providertest.Reply{Body: body})
	resp, err := newModel(t, s.URL()).Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
	if err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	if resp.Text() != "Two lookups." || len(resp.Parts) != 3 {
		t.Errorf("Got(parts) = %+v; want the text and two tool calls, no thinking", resp.Parts)
	}
	calls := resp.ToolCalls()
	if len(calls) != 2 || calls[1].ID != "toolu_b" || string(calls[1].Input) != `{"q":"b"}` {
		t.Errorf("Got(tool calls) = %+v; want toolu_a and toolu_b with their inputs", calls)
	}
	want := keel.Usage{InputTokens: 1105, OutputTokens: 9, TotalTokens: 1114}
	if resp.Usage != want || resp.FinishReason != keel.FinishToolCalls || resp.ModelID != "claude-sonnet-4-5-20250929" || resp.ID != "msg_1" {
		t.Errorf("Got(usage, finish, model, id) = %+v %q %q %q; want %+v tool-calls claude-sonnet-4-5-20250929 msg_1", resp.Usage, resp.FinishReason, resp.ModelID, resp.ID, want)
	}
}

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		stop string
		want keel.FinishReason
	}{
		{"end_turn", keel.FinishStop},
		{"stop_sequence", keel.FinishStop},
		{"max_tokens", keel.FinishLength},
		{"model_context_window_exceeded", keel.FinishLength},
		{"tool_use", keel.FinishToolCalls},
		{"refusal", keel.FinishContentFilter},
		{"pause_turn", keel.FinishOther},
	}
	for _, tc := range tests {
		t.Run(tc.stop, func(t *testing.T) {
			body := strings.Replace(textBody("x"), `"stop_reason":"end_turn"`, `"stop_reason":"`+tc.stop+`"`, 1)
			var sb strings.Builder
			streamStart(&sb)
			streamEnd(&sb, tc.stop)
			s := providertest.NewServer(t, providertest.Reply{Body: body}, providertest.Reply{Body: sb.String(), ContentType: "text/event-stream"})
			m := newModel(t, s.URL())
			req := &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}
			resp, err := m.Generate(context.Background(), req)
			if err != nil || resp.FinishReason != tc.want {
				t.Errorf("Got(Generate finish) = %v, %v; want %q", resp, err, tc.want)
			}
			c := providertest.Collect(t, m.Stream(context.Background(), req))
			if c.Err != nil || c.Finish == nil || c.Finish.FinishReason != tc.want {
				t.Errorf("Got(Stream finish) = %+v, %v; want %q", c.Finish, c.Err, tc.want)
			}
		})
	}
}

// TestConcurrentCalls runs generate and stream calls with files on one
// model at once; with -race it checks the model shares no call state.
func TestConcurrentCalls(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: textBody("ok")})
	m := newModel(t, s.URL())
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := []byte(strings.Repeat(string(rune('a'+i)), 1000+i))
			req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
				keel.TextPart{Text: "read"}, keel.FilePart{Data: data, MediaType: "application/pdf"},
			}}}}
			if i%2 == 0 {
				_, err := m.Generate(context.Background(), req)
				errs <- err
				return
			}
			errs <- providertest.Collect(t, m.Stream(context.Background(), req)).Err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Got(call error) = %v; want none", err)
		}
	}
	seen := map[int]bool{}
	for _, r := range s.Requests() {
		files := sentFiles(t, r.Body)
		if len(files) != 1 {
			t.Fatalf("Got(files) = %d; want 1", len(files))
		}
		n := len(files[0].Data)
		if files[0].Data[0] != byte('a'+n-1000) {
			t.Errorf("Got(file of %d bytes) starts with %q; want its own call's content", n, files[0].Data[0])
		}
		seen[n] = true
	}
	if len(seen) != 8 {
		t.Errorf("Got(distinct files) = %d; want 8", len(seen))
	}
}
