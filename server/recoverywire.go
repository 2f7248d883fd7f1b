package server

import (
	"maps"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/processor"
)

// wireRecovery is a recovery as the server sends it, in a stream's
// events, a generate answer and a stored turn's metadata: its JSON, with
// the words of [processor.Recovery.Describe], so that a client shows what
// keel's command line and log say instead of wording a recovery itself.
// "by" names the processor, "why" says the cause, and each file's "got"
// what the model got in its place.
type wireRecovery struct {
	processor.Recovery
	By  string `json:"by"`
	Why string `json:"why"`
	// Files shadows the embedded Files, and is [] when there is none.
	Files []wireRecoveredFile `json:"files"`
}

type wireRecoveredFile struct {
	processor.RecoveredFile
	Got string `json:"got"`
}

// toWireRecovery is rec with its words.
func toWireRecovery(rec processor.Recovery) wireRecovery {
	d := rec.Describe()
	out := wireRecovery{Recovery: rec, By: d.By, Why: d.Why, Files: make([]wireRecoveredFile, len(rec.Files))}
	for i, f := range rec.Files {
		out.Files[i] = wireRecoveredFile{RecoveredFile: f, Got: d.Files[i].Got}
	}
	return out
}

// toWireRecoveries is recs with their words; [] when there is none.
func toWireRecoveries(recs []processor.Recovery) []wireRecovery {
	out := make([]wireRecovery, len(recs))
	for i, rec := range recs {
		out[i] = toWireRecovery(rec)
	}
	return out
}

// withWireRecoveries is m's metadata with the recoveries stored under
// [agent.MetadataRecoveries] given their words, in a copy; the metadata
// itself when it holds none, or a value that is not a list of
// recoveries (shown as stored).
func withWireRecoveries(m keel.Message) map[string]any {
	recs, err := agent.StoredRecoveries(m)
	if err != nil || recs == nil {
		return m.Metadata
	}
	md := maps.Clone(m.Metadata)
	md[agent.MetadataRecoveries] = toWireRecoveries(recs)
	return md
}
