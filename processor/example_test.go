package processor_test

import (
	"context"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// A recovery in words: the line keel's command line prints for each file,
// and the parts the console shows on the file's card.
func ExampleRecovery_Describe() {
	rec := processor.Recovery{
		Processor: processor.UnsupportedFileHandlerID,
		Action:    processor.OutcomeConverted,
		Cause: &processor.RecoveryCause{Kind: processor.CauseAPIError, Provider: "google", Status: 400,
			Code: "INVALID_ARGUMENT", Message: "Unsupported MIME type"},
		Files: []processor.RecoveredFile{{
			Name: "leads.xlsx", Outcome: processor.OutcomeConverted, Path: "/home/user/uploads/t1/ab12.xlsx",
			Conversion: &processor.Conversion{Kind: "xlsx", As: "CSV", Description: `sheet "Leads", 1,204 rows × 9 columns`,
				Chars: 61234, OmittedChars: 20000, OmittedUnits: 310, Unit: "rows", OmittedAtLeast: true},
		}},
	}
	d := rec.Describe()
	for _, line := range d.Lines() {
		fmt.Println(line)
	}
	fmt.Println("By:", d.By)
	fmt.Println("Why:", d.Why)
	fmt.Println("Got:", d.Files[0].Got)
	// Output:
	// leads.xlsx converted to text (CSV, sheet "Leads", 1,204 rows × 9 columns, 61,234 characters, at least 20,000 (310 rows) left out) and uploaded to the sandbox at /home/user/uploads/t1/ab12.xlsx (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type)
	// By: Unsupported File Handler
	// Why: google answered 400 INVALID_ARGUMENT: Unsupported MIME type
	// Got: converted to text (CSV, sheet "Leads", 1,204 rows × 9 columns, 61,234 characters, at least 20,000 (310 rows) left out) and uploaded to the sandbox at /home/user/uploads/t1/ab12.xlsx
}

// A link the model's provider does not fetch is downloaded before the
// call; without a Client no host is allowed, and the model gets a note
// saying so in place of the file.
func ExampleLinkDownload() {
	run := processor.NewRun("run-1", nil)
	req := &processor.LLMRequest{Run: run, Prompt: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise this."},
		keel.FilePart{URL: "https://example.com/q3/report.pdf", MediaType: "application/pdf"},
	}}}}
	links := &processor.LinkDownload{}
	if err := links.RewriteLLMRequest(context.Background(), req); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.Prompt[0].Parts[1].(keel.TextPart).Text)
	fmt.Println(run.Recoveries()[0].Action)
	// Output:
	// [File not downloaded]
	// name: report.pdf
	// reason: The host "example.com" is not on the list of hosts files may be downloaded from (no host is allowed).
	// not-downloaded
}
