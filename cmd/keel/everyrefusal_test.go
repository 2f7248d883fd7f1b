package main_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

const (
	chatAnswer      = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Read it."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Read it."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`
)

// pngBytes is a 1×1 PNG.
func pngBytes() []byte {
	b, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	return b
}

// pdfBytes is a one-page PDF whose text is "Quarterly revenue rose".
func pdfBytes() []byte {
	content := "BT /F1 12 Tf 72 720 Td (Quarterly revenue rose) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// refusingServer answers refusal to every request whose body holds
// marker, and ok to the others.
func refusingServer(t *testing.T, marker string, refusal providertest.Reply, ok string) *providertest.Server {
	return providertest.NewServerFunc(t, func(r providertest.Recorded, _ int) providertest.Reply {
		if strings.Contains(string(r.Body), marker) {
			return refusal
		}
		return providertest.Reply{Body: ok}
	})
}

// cannotSee begins what a model that sees no images gets of one: what
// can be said of it without a vision model.
const cannotSee = `[Image f.png, which the model cannot see]\nImage: PNG, 1 × 1 pixels`

// TestRunRecoversEveryServersRefusal sends, through keel run, each file
// the servers people run refuse, in each server's own words: the first
// turn recovers in at most two calls and the model gets the note (and a
// PDF's text); every later turn of the thread is one call.
func TestRunRecoversEveryServersRefusal(t *testing.T) {
	compatible := func(url string) []string {
		return []string{"KEEL_MODEL=openai-compatible/m", "OPENAI_COMPATIBLE_BASE_URL=" + url + "/v1"}
	}
	tests := []struct {
		name      string
		refusal   providertest.Refusal
		file      string // "png" or "pdf"
		marker    string // what the refused request's body holds
		ok        string
		env       func(url string) []string
		firstRuns int    // calls of the first turn
		sees      string // what the model gets of the file besides the note
	}{
		{"vllm", providertest.VLLMFilePart, "pdf", `"type":"file"`, chatAnswer, compatible, 2, "Quarterly revenue rose"},
		{"llama.cpp", providertest.LlamaCppImage, "png", `image_url`, chatAnswer, compatible, 2, cannotSee},
		{"ollama", providertest.OllamaImage, "png", `image_url`, chatAnswer, compatible, 2, cannotSee},
		{"openrouter", providertest.OpenRouterImage, "png", `image_url`, chatAnswer, compatible, 2, cannotSee},
		{"mistral", providertest.MistralDocument, "png", `image_url`, chatAnswer, compatible, 2, ""},
		{"groq", providertest.GroqListContent, "png", `"content":[`, chatAnswer, compatible, 2, ""},
		{"anthropic pages", providertest.AnthropicPages, "pdf", `"document"`, anthropicAnswer,
			func(url string) []string {
				return []string{"KEEL_MODEL=anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + url}
			}, 2, "Quarterly revenue rose"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := refusingServer(t, tt.marker, tt.refusal.Reply, tt.ok)
			dir := t.TempDir()
			data := pngBytes()
			if tt.file == "pdf" {
				data = pdfBytes()
			}
			writeFile(t, filepath.Join(dir, "f."+tt.file), data)
			db := filepath.Join(dir, "k.db")
			turn := func(args ...string) turnJSON {
				t.Helper()
				res := mustKeel(t, dir, env(tt.env(srv.URL())...), append([]string{"run", "--json", "--db", db, "--sandbox", filepath.Join(dir, "sb")}, args...)...)
				return decode[turnJSON](t, "run output", res.stdout)
			}
			out := turn("--new-thread", "t1", "--file", "f."+tt.file, "What is in this file?")
			reqs := srv.Requests()
			if out.Calls != tt.firstRuns || len(reqs) != tt.firstRuns {
				t.Fatalf("Got(turn 1) = %d calls, %d requests; want %d", out.Calls, len(reqs), tt.firstRuns)
			}
			last := string(reqs[len(reqs)-1].Body)
			if strings.Contains(last, tt.marker) || !strings.Contains(last, `[File uploaded to the sandbox]\npath: /home/user/uploads/t1/`) {
				t.Errorf("Got(turn 1's last request) = %s; want the sandbox's note and no file", last)
			}
			if !strings.Contains(last, tt.sees) {
				t.Errorf("Got(turn 1's last request) = %s; want it to hold %q", last, tt.sees)
			}
			if len(out.Recoveries) == 0 || out.Recoveries[0].Cause == nil || out.Recoveries[0].Cause.Status != tt.refusal.Reply.Status {
				t.Errorf("Got(recoveries) = %+v; want the refusal as the cause", out.Recoveries)
			}
			for turnN := 2; turnN <= 3; turnN++ {
				out = turn("--thread", "t1", fmt.Sprintf("Question %d", turnN))
				reqs = srv.Requests()
				body := string(reqs[len(reqs)-1].Body)
				if out.Calls != 1 || len(reqs) != tt.firstRuns+turnN-1 || strings.Contains(body, tt.marker) {
					t.Errorf("Got(turn %d) = %d calls, %d requests in all; want 1 call, the file handled before it", turnN, out.Calls, len(reqs))
				}
			}
		})
	}
}

// TestRunThreadWithRefusedPDF follows a thread that stores a PDF a
// compatible server refuses: after the first turn, each of eleven more
// succeeds in one call.
func TestRunThreadWithRefusedPDF(t *testing.T) {
	srv := refusingServer(t, `"type":"file"`, providertest.VLLMFilePart.Reply, chatAnswer)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "report.pdf"), pdfBytes())
	db := filepath.Join(dir, "k.db")
	environ := env("KEEL_MODEL=openai-compatible/m", "OPENAI_COMPATIBLE_BASE_URL="+srv.URL()+"/v1")
	turn := func(args ...string) turnJSON {
		t.Helper()
		res := mustKeel(t, dir, environ, append([]string{"run", "--json", "--db", db, "--sandbox", filepath.Join(dir, "sb")}, args...)...)
		return decode[turnJSON](t, "run output", res.stdout)
	}
	if out := turn("--new-thread", "t1", "--file", "report.pdf", "Summarise"); out.Calls != 2 {
		t.Fatalf("Got(turn 1) = %d calls; want 2", out.Calls)
	}
	for n := 2; n <= 12; n++ {
		if out := turn("--thread", "t1", fmt.Sprintf("Turn %d", n)); out.Calls != 1 {
			t.Fatalf("Got(turn %d) = %d calls; want 1", n, out.Calls)
		}
	}
	if got := len(srv.Requests()); got != 13 {
		t.Errorf("Got(requests) = %d; want 13", got)
	}
}

// TestRunGeminiBadKeyWithFile: a bad key answered 400 is not the file's
// fault: one call, an error about the key.
func TestRunGeminiBadKeyWithFile(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) {
		return providertest.GeminiBadKey.Reply, true
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
	res := keel(t, dir, geminiEnv(srv), "run", "--db", filepath.Join(dir, "k.db"), "--sandbox", filepath.Join(dir, "sb"), "--file", "leads.xlsx", "Count")
	if res.code == 0 || len(srv.Requests()) != 1 {
		t.Fatalf("Got(run) = exit %d, %d requests; want a failure after 1 request", res.code, len(srv.Requests()))
	}
	if !strings.Contains(res.stderr, "API key not valid") || strings.Contains(strings.ToLower(res.stderr), "try again") {
		t.Errorf("Got(stderr) = %q; want the key named, no advice to try again", res.stderr)
	}
}
