package server

import (
	"context"
	"log/slog"

	"github.com/keel-go/keel/processor"
)

// logRecovery writes what a recovery a run reported did: one line per
// file (thread, file, what the model got instead and why, in the words
// [processor.Recovery.Describe] gives every reader), so that a search for
// a file's name or digest finds each time keel acted on it. The cause is
// the cause's kind, "none" when the processor acted on its own rule. A
// recovery about no file is one line without a file.
func (s *Server) logRecovery(ctx context.Context, agentID, runID, threadID, resourceID string, rec processor.Recovery) {
	d := rec.Describe()
	base := []slog.Attr{
		slog.String("agent", agentID),
		slog.String("run", runID),
		slog.String("thread", threadID),
		slog.String("resource", resourceID),
		slog.String("processor", rec.Processor),
		slog.String("action", rec.Action),
		slog.String("cause", rec.CauseKind()),
		slog.String("why", d.Why),
	}
	if len(rec.Files) == 0 {
		s.logger.LogAttrs(ctx, slog.LevelInfo, "server: recovery", append(base, slog.String("got", d.Files[0].Got))...)
		return
	}
	for i, f := range rec.Files {
		s.logger.LogAttrs(ctx, slog.LevelInfo, "server: recovery", append(base[:len(base):len(base)],
			slog.String("file", f.Name),
			slog.String("mediaType", f.MediaType),
			slog.Int64("size", f.Size),
			slog.String("sha256", f.SHA256),
			slog.String("outcome", f.Outcome),
			slog.String("got", d.Files[i].Got),
		)...)
	}
}
