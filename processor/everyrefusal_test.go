package processor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// apiRefusal is an answer as an adapter types it.
func apiRefusal(status int, fault keel.Fault, mediaType, class string, limit int64) *keel.APICallError {
	return &keel.APICallError{Provider: "local", StatusCode: status, Message: "refused", Fault: fault,
		MediaType: mediaType, MediaClass: class, Limit: limit}
}

// blamingHandler is the handler keel serve and keel run build.
func newBlaming(t *testing.T) *refusalsSetup {
	s := newRefusals(t)
	s.h = processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: s.rr, BlameReadableFiles: true})
	return s
}

func TestTypedRefusals(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		msg    keel.Message
		retry  bool
		prompt []string
		learnt []string
	}{
		{"a class names the images (OpenRouter's 404)", apiRefusal(404, keel.FaultFileType, "", "image/*", 0),
			userMsg(text("what is it?"), png, pdf), true,
			[]string{"what is it?", placeholder("logo.png"), "file:brief.pdf"}, []string{"google/gemini-2.5-flash image/png 404"}},
		{"a PDF sent as a file part (vLLM)", apiRefusal(400, keel.FaultFileType, "application/pdf", "", 0),
			userMsg(png, pdf), true,
			[]string{"file:logo.png", placeholder("brief.pdf")}, []string{"google/gemini-2.5-flash application/pdf 400"}},
		{"every file of a text-only server (Groq)", apiRefusal(400, keel.FaultFileType, "", "*/*", 0),
			userMsg(text("hi"), png, csv), true,
			[]string{"hi", placeholder("logo.png"), placeholder("t.csv")}, []string{"google/gemini-2.5-flash image/png 400", "google/gemini-2.5-flash text/csv 400"}},
		{"a 500 that names image input (llama.cpp)", apiRefusal(500, keel.FaultFileType, "", "image/*", 0),
			userMsg(png), true, []string{placeholder("logo.png")}, []string{"google/gemini-2.5-flash image/png 500"}},
		{"a class the request does not hold, an unreadable file there", apiRefusal(400, keel.FaultFileType, "", "audio/*", 0),
			userMsg(png, xlsx), true, []string{"file:logo.png", placeholder("leads.xlsx")}, nil},
		{"a bad key in a 400 (Gemini's API_KEY_INVALID)", apiRefusal(400, keel.FaultNotFile, "", "", 0),
			userMsg(xlsx), false, []string{"file:leads.xlsx"}, nil},
		{"a 404 that says nothing of files", apiRefusal(404, keel.FaultUnknown, "", "", 0),
			userMsg(xlsx), false, []string{"file:leads.xlsx"}, nil},
		{"a 401 even typed as a file", apiRefusal(401, keel.FaultFileType, "", "image/*", 0),
			userMsg(png), false, []string{"file:logo.png"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newRefusals(t)
			run := quietRun(tt.msg)
			s.fail(t, run, flash, tt.err, tt.retry)
			if got := partTexts(s.call(t, run, flash, false)[0]); !equalStrings(got, tt.prompt) {
				t.Errorf("Got(prompt) = %q; want %q", got, tt.prompt)
			}
			if got := s.entries(t); !equalStrings(got, sorted(tt.learnt)) {
				t.Errorf("Got(remembered at once) = %q; want %q", got, tt.learnt)
			}
		})
	}
}

func TestBlameReadableFiles(t *testing.T) {
	onlyReadable := userMsg(text("describe"), png, pdf)
	t.Run("the reference framework's rule leaves it", func(t *testing.T) {
		s := newRefusals(t)
		s.fail(t, quietRun(onlyReadable), flash, apiErr(400), false)
	})
	t.Run("beyond it, one call without every file", func(t *testing.T) {
		s := newBlaming(t)
		run := quietRun(onlyReadable)
		s.fail(t, run, flash, apiErr(400), true)
		want := []string{"describe", placeholder("logo.png"), placeholder("brief.pdf")}
		if got := partTexts(s.call(t, run, flash, true)[0]); !equalStrings(got, want) {
			t.Errorf("Got(prompt) = %q; want %q", got, want)
		}
		learnt := []string{"google/gemini-2.5-flash application/pdf 400", "google/gemini-2.5-flash image/png 400"}
		if got := s.entries(t); !equalStrings(got, learnt) {
			t.Errorf("Got(remembered once the call succeeded) = %q; want %q", got, learnt)
		}
		later := quietRun(userMsg(text("again"), png))
		if got := partTexts(s.call(t, later, flash, true)[0]); !equalStrings(got, []string{"again", placeholder("logo.png")}) {
			t.Errorf("Got(a later turn's first call) = %q; want the image handled before the call", got)
		}
	})
	t.Run("not remembered when that call fails too", func(t *testing.T) {
		s := newBlaming(t)
		run := quietRun(onlyReadable)
		s.fail(t, run, flash, apiErr(400), true)
		s.call(t, run, flash, false)
		if got := s.entries(t); len(got) != 0 {
			t.Errorf("Got(entries) = %q; want none", got)
		}
	})
	for _, status := range []int{401, 403, 404, 408, 409, 429, 503, 504} {
		t.Run("never for "+apiErr(status).Error(), func(t *testing.T) {
			s := newBlaming(t)
			s.fail(t, quietRun(onlyReadable), flash, apiErr(status), false)
		})
	}
	t.Run("never without an answer", func(t *testing.T) {
		s := newBlaming(t)
		s.fail(t, quietRun(onlyReadable), flash, &keel.APICallError{Provider: "local", Retryable: true}, false)
	})
	t.Run("never for an answer typed not a file's fault", func(t *testing.T) {
		s := newBlaming(t)
		s.fail(t, quietRun(onlyReadable), flash, apiRefusal(400, keel.FaultNotFile, "", "", 0), false)
	})
}

func TestOneRetryPerRefusal(t *testing.T) {
	msg := userMsg(text("both"), png, pdf)
	images := apiRefusal(500, keel.FaultFileType, "", "image/*", 0)
	files := apiRefusal(400, keel.FaultFileType, "application/pdf", "", 0)
	t.Run("beyond the reference framework, a second refusal takes out more", func(t *testing.T) {
		s := newBlaming(t)
		run := quietRun(msg)
		s.fail(t, run, flash, images, true)
		bumpRetries(t, run, 1)
		first := s.call(t, run, flash, false)
		if got := partTexts(first[0]); !equalStrings(got, []string{"both", placeholder("logo.png"), "file:brief.pdf"}) {
			t.Fatalf("Got(second call) = %q; want the image out", got)
		}
		d, err := s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: files, Prompt: first, Model: flash})
		if err != nil || !d.Retry {
			t.Fatalf("Got(second refusal) = %+v, %v; want a retry", d, err)
		}
		bumpRetries(t, run, 1)
		second := s.call(t, run, flash, false)
		if got := partTexts(second[0]); !equalStrings(got, []string{"both", placeholder("logo.png"), placeholder("brief.pdf")}) {
			t.Errorf("Got(third call) = %q; want both out", got)
		}
		d, err = s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: files, Prompt: second, Model: flash})
		if err != nil || d.Retry {
			t.Errorf("Got(the same refusal again) = %+v, %v; want no retry: nothing is left to take out", d, err)
		}
	})
	t.Run("the reference framework acts on the first failure only", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(msg)
		s.fail(t, run, flash, images, true)
		bumpRetries(t, run, 1)
		d, _ := s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: files, Prompt: s.call(t, run, flash, false), Model: flash})
		if d.Retry {
			t.Errorf("Got(second refusal) = retry; want none")
		}
	})
}

func TestSizeAndPageRefusals(t *testing.T) {
	big := keel.FilePart{Data: []byte(strings.Repeat("B", 40)), MediaType: "application/pdf", Filename: "big.pdf"}
	small := keel.FilePart{Data: []byte(strings.Repeat("s", 10)), MediaType: "application/pdf", Filename: "small.pdf"}
	t.Run("the request's limit: the largest files until the rest fits", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(userMsg(text("read"), small, big))
		s.fail(t, run, flash, apiRefusal(400, keel.FaultFileSize, "", "", 30), true)
		if got := partTexts(s.call(t, run, flash, true)[0]); !equalStrings(got, []string{"read", "file:small.pdf", placeholder("big.pdf")}) {
			t.Errorf("Got(prompt) = %q; want the big PDF out", got)
		}
		if got := s.entries(t); len(got) != 1 || !strings.Contains(got[0], " sha256:") {
			t.Fatalf("Got(entries) = %q; want the big file remembered by its digest", got)
		}
		later := quietRun(userMsg(text("again"), big, small))
		want := []string{"again", placeholder("big.pdf"), "file:small.pdf"}
		if got := partTexts(s.call(t, later, flash, true)[0]); !equalStrings(got, want) {
			t.Errorf("Got(a later turn's first call) = %q; want %q", got, want)
		}
		if recs := later.Recoveries(); len(recs) != 1 || recs[0].Cause.Kind != processor.CauseRememberedRefusal || recs[0].Cause.MediaType != "" {
			t.Errorf("Got(recoveries) = %+v; want one remembered refusal of a file, naming no type", recs)
		}
	})
	t.Run("a page limit at a type: every file of it", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(userMsg(png, small, big))
		s.fail(t, run, flash, apiRefusal(400, keel.FaultFilePages, "application/pdf", "", 100), true)
		want := []string{"file:logo.png", placeholder("small.pdf"), placeholder("big.pdf")}
		if got := partTexts(s.call(t, run, flash, false)[0]); !equalStrings(got, want) {
			t.Errorf("Got(prompt) = %q; want %q", got, want)
		}
	})
	t.Run("a per-file limit at a type: the files over it", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(userMsg(small, big))
		s.fail(t, run, flash, apiRefusal(400, keel.FaultFileSize, "application/pdf", "", 20), true)
		want := []string{"file:small.pdf", placeholder("big.pdf")}
		if got := partTexts(s.call(t, run, flash, false)[0]); !equalStrings(got, want) {
			t.Errorf("Got(prompt) = %q; want %q", got, want)
		}
	})
}

// apiModel is a model reached through a named API.
type apiModel struct {
	namedModel
	api string
}

func (m apiModel) API() string { return m.api }

func TestRefusalsKnowTheEndpoint(t *testing.T) {
	s := newRefusals(t)
	responses := apiModel{namedModel{provider: "openai", name: "gpt-5"}, "responses"}
	chat := apiModel{namedModel{provider: "openai", name: "gpt-5"}, "chat"}
	s.fail(t, quietRun(userMsg(xlsx)), responses, unsupported(xlsxType), true)
	if got, want := s.entries(t), []string{"openai/responses/gpt-5 " + xlsxType + " 0"}; !equalStrings(got, want) {
		t.Fatalf("Got(entries) = %q; want %q", got, want)
	}
	if got := partTexts(s.call(t, quietRun(userMsg(xlsx)), chat, true)[0]); !equalStrings(got, []string{"file:leads.xlsx"}) {
		t.Errorf("Got(Chat Completions' call) = %q; want the file sent: the refusal was the Responses API's", got)
	}
}

func TestStreamRetryNeverResendsARefusedFile(t *testing.T) {
	p := processor.DefaultStreamErrorRetry()
	for _, f := range []keel.Fault{keel.FaultFileType, keel.FaultFileSize, keel.FaultFilePages} {
		err := apiRefusal(500, f, "", "image/*", 0)
		err.Retryable = true
		d, herr := p.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: quietRun(userMsg(png)), Err: err})
		if herr != nil || d.Retry {
			t.Errorf("Got(stream retry of a %s 500) = %+v, %v; want none", f, d, herr)
		}
	}
}
