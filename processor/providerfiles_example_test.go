package processor_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
)

// A 16 MB PDF, 21.3 MB as base64, is over the 20 MiB of inline data a
// Gemini request takes: the handler uploads it to Gemini's Files API and
// the call names it by its URI. The store keeps the reference, so the next turn (a new run)
// names it without uploading it again.
func ExampleUnsupportedFileOptions_providerFiles() {
	srv := googletest.Start(googletest.Options{}) // a local server speaking Gemini's API
	defer srv.Close()
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		fmt.Println(err)
		return
	}
	store := memory.NewInMemory()
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{ProviderFiles: store})
	pdf := keel.FilePart{Data: bytes.Repeat([]byte("%PDF"), 16_000_000/4), MediaType: "application/pdf", Filename: "scan.pdf"}

	for turn := 1; turn <= 2; turn++ {
		run := processor.NewRun(fmt.Sprint("run-", turn), nil)
		run.Messages = []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Summarise"}, pdf}}}
		req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages), Model: model}
		if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
			fmt.Println(err)
			return
		}
		f := req.Prompt[0].Parts[1].(keel.FilePart)
		rec := run.Recoveries()[0]
		fmt.Printf("turn %d: by reference %v, %s for %s, uploads %d\n", turn,
			strings.HasPrefix(f.URL, srv.URL()+"/v1beta/files/"), rec.Action, rec.Cause.Kind, len(srv.Uploads()))
	}
	// Output:
	// turn 1: by reference true, provider-file for inline-limit, uploads 1
	// turn 2: by reference true, provider-file for inline-limit, uploads 1
}
