package agent_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// TestOversizedFileExplained checks that a refused file over 10 MiB is
// explained one way: with a sandbox it is not uploaded, the model gets the
// note with the reason, and the recovery (returned and streamed) says the
// same, with the file's size and digest and the refusal that caused it;
// without a sandbox the model gets the placeholder and the recovery says
// so.
func TestOversizedFileExplained(t *testing.T) {
	data := make([]byte, 11<<20)
	sum := sha256.Sum256(data)
	big := keel.FilePart{Data: data, MediaType: xlsxType, Filename: "big.xlsx"}
	reason := `File "big.xlsx" is 11534336 bytes, over the 10485760 byte limit.`
	tests := []struct {
		name     string
		ws       *workspace.Workspace
		wantPart string
		wantFile processor.RecoveredFile
	}{
		{"with a sandbox", workspace.New(keeltest.NewSandbox("sb")),
			"[File not uploaded]\nname: big.xlsx\nreason: " + reason,
			processor.RecoveredFile{Name: "big.xlsx", MediaType: xlsxType, Size: 11 << 20, SHA256: hex.EncodeToString(sum[:]),
				Outcome: processor.OutcomeNotUploaded, Reason: reason}},
		{"without a sandbox", nil,
			"[Attachment unavailable: big.xlsx]",
			processor.RecoveredFile{Name: "big.xlsx", MediaType: xlsxType, Size: 11 << 20, SHA256: hex.EncodeToString(sum[:]),
				Outcome: processor.OutcomePlaceholder}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forModes(t, func(t *testing.T, m mode) {
				model := refusingModel("ok")
				a := newAgent(t, agent.Config{Model: model, Workspace: tt.ws})
				res, events, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "Read"}, big)})
				if err != nil {
					t.Fatal(err)
				}
				if got := userParts(model.Prompts()[1]); !slices.Equal(got, []string{"Read", tt.wantPart}) {
					t.Errorf("Got(user parts of 2nd prompt) = %q; want %q", got, tt.wantPart)
				}
				wantCause := processor.RecoveryCause{Kind: processor.CauseUnsupportedFunctionality,
					Message: "'file part media type " + xlsxType + "' functionality not supported.", MediaType: xlsxType}
				recs := res.Recoveries
				if len(recs) != 1 || recs[0].Action != tt.wantFile.Outcome || len(recs[0].Files) != 1 || recs[0].Files[0] != tt.wantFile ||
					recs[0].Cause == nil || *recs[0].Cause != wantCause {
					t.Fatalf("Got(recoveries) = %+v; want one %s of %+v caused by %+v", recs, tt.wantFile.Outcome, tt.wantFile, wantCause)
				}
				if m.name == "stream" {
					var streamed []processor.Recovery
					for _, ev := range events {
						if ev.Type == agent.EventRecovery {
							streamed = append(streamed, ev.Recovery)
						}
					}
					if len(streamed) != 1 || streamed[0].Files[0] != tt.wantFile {
						t.Errorf("Got(streamed recoveries) = %+v; want the same one", streamed)
					}
				}
			})
		})
	}
}
