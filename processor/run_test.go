package processor_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// countingWorkspace resolves sb and counts how often it is asked.
func countingWorkspace(sb workspace.Sandbox, calls *atomic.Int64) *workspace.Workspace {
	return workspace.NewResolved(workspace.ResolverFunc(func(ctx context.Context, _ workspace.Scope) (workspace.Sandbox, error) {
		calls.Add(1)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return sb, nil
	}))
}

// TestSandboxResolvedOncePerRun checks that the FileUpload processor and
// the unsupported-file handler of one run, over several calls, ask the
// workspace for the run's sandbox once, and that a resolution cut short by
// a cancelled context is not kept.
func TestSandboxResolvedOncePerRun(t *testing.T) {
	var calls atomic.Int64
	sb := keeltest.NewSandbox("sb")
	ws := countingWorkspace(sb, &calls)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, Filter: csvOnly})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("Got(resolutions by NewFileUpload) = %d; want 0", n)
	}
	h := processor.NewUnsupportedFileHandler()
	csv := keel.FilePart{Data: []byte("a,b\n"), MediaType: "text/csv", Filename: "a.csv"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("see", csv, xlsx)})

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := u.run.Sandbox(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("Got(Sandbox(cancelled)) error %v; want context.Canceled", err)
	}
	if err := u.processInput(p); err != nil {
		t.Fatalf("Got(ProcessInput) error %v; want none: the cancelled resolution is not kept", err)
	}
	refuse(t, h, u.run, apiErr(400), true)
	for range 3 {
		req := &processor.LLMRequest{Run: u.run, Prompt: keel.CloneMessages(u.run.Messages)}
		if err := p.RewriteLLMRequest(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if got := partTexts(req.Prompt[0]); len(got) != 3 || !strings.HasPrefix(got[1], "[File uploaded") || !strings.HasPrefix(got[2], "[File uploaded") {
			t.Fatalf("Got(prompt) = %q; want both files uploaded", got)
		}
	}
	if _, err := u.run.Sandbox(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("Got(resolutions) = %d; want 2: the cancelled one, then one for the whole run", n)
	}
	if n := len(sb.Writes()); n != 2 {
		t.Errorf("Got(writes) = %d; want 2, one per file", n)
	}
}

// failingInput fails a turn with err, whatever the context.
type failingInput struct{ err error }

func (failingInput) ID() string { return "failing-input" }
func (f failingInput) ProcessInput(context.Context, *processor.Input) error {
	return f.err
}
func (f failingInput) RewriteLLMRequest(context.Context, *processor.LLMRequest) error {
	return f.err
}

// TestPipelineCancelledContext checks the one rule for a cancelled run:
// input and LLM-request hooks end with the context's error, not with what
// a hook made of the cancellation, and API errors are not retried.
func TestPipelineCancelledContext(t *testing.T) {
	noSandbox := &processor.FileUploadError{Code: processor.CodeNoSandbox, Err: context.Canceled}
	p := processor.NewPipeline([]processor.Processor{failingInput{err: noSandbox}, retryBumper{}}, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := processor.NewRun("r", nil)

	err := p.ProcessInput(ctx, &processor.Input{Run: run})
	var pie *processor.ProcessInputError
	if err != context.Canceled || errors.As(err, &pie) { //nolint:errorlint // the bare error is the point
		t.Errorf("Got(ProcessInput) = %v; want context.Canceled itself", err)
	}
	if err := p.RewriteLLMRequest(ctx, &processor.LLMRequest{Run: run}); err != context.Canceled { //nolint:errorlint // idem
		t.Errorf("Got(RewriteLLMRequest) = %v; want context.Canceled itself", err)
	}
	if d := p.HandleAPIError(ctx, &processor.APIErrorEvent{Run: run, Err: errors.New("x")}); d.Retry {
		t.Errorf("Got(HandleAPIError) = %+v; want no retry", d)
	}

	// With a live context the processor's own error is the turn's.
	err = p.ProcessInput(context.Background(), &processor.Input{Run: run})
	if !errors.As(err, &pie) || pie.Processor != "failing-input" {
		t.Errorf("Got(ProcessInput) = %v; want the processor's error", err)
	}
}

// TestHandlerUsesCarriedDigest checks that a file that carries its digest
// (as stored files do) is named by it, and that one without is hashed:
// both upload paths and reports use the same digest.
func TestHandlerUsesCarriedDigest(t *testing.T) {
	carried := strings.Repeat("0", 63) + "7" // not the bytes' digest: proves it was used, not computed
	tests := []struct {
		name string
		file keel.FilePart
		want string
	}{
		{"carried", keel.FilePart{Data: xlsxData, MediaType: xlsxType, Filename: "leads.xlsx", SHA256: carried}, carried},
		{"computed", keel.FilePart{Data: xlsxData, MediaType: xlsxType, Filename: "leads.xlsx"}, fmt.Sprintf("%x", sha256.Sum256(xlsxData))},
		{"computed from a data URL", keel.FilePart{URL: keel.DataURL(xlsxType, xlsxData), MediaType: xlsxType, Filename: "leads.xlsx"},
			fmt.Sprintf("%x", sha256.Sum256(xlsxData))},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := keeltest.NewSandbox("sb")
			run := fileRun(sb, nil, userMsg(tt.file))
			refuse(t, h, run, apiErr(400), true)
			// Later calls see a copy of the stored file, as a run without
			// memory or a store that sets no digest gives: equal bytes,
			// another slice.
			for call := range 3 {
				prompt := keel.CloneMessages(run.Messages)
				if call > 0 && tt.file.Data != nil {
					f := prompt[0].Parts[0].(keel.FilePart)
					f.Data = append([]byte(nil), f.Data...)
					prompt[0].Parts[0] = f
				}
				req := &processor.LLMRequest{Run: run, Prompt: prompt}
				if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
					t.Fatal(err)
				}
				want := "path: /home/user/uploads/thread-1/" + tt.want + ".xlsx"
				if got := req.Prompt[0].Parts[0].(keel.TextPart).Text; !strings.Contains(got, want) {
					t.Fatalf("Got(call %d note) = %q; want %q", call, got, want)
				}
			}
			if n := len(sb.Writes()); n != 1 {
				t.Errorf("Got(writes) = %d; want 1", n)
			}
			if recs := run.Recoveries(); len(recs) != 1 || recs[0].Files[0].SHA256 != tt.want {
				t.Errorf("Got(recoveries) = %+v; want one with SHA256 %s", recs, tt.want)
			}
		})
	}
}
