package server

import (
	"context"
	"log/slog"

	"github.com/keel-go/keel/processor"
)

// logRecovery writes what a recovery a run reported did: one line per
// file (thread, file, what the model got instead, why), so that a search
// for a file's name or digest finds each time keel acted on it. The cause
// group (kind, provider, status, code, message, mediaType) is absent when
// the processor acted on its own rule, not on an error. A recovery about
// no file is one line without a file.
func (s *Server) logRecovery(ctx context.Context, agentID, runID, threadID, resourceID string, rec processor.Recovery) {
	base := []slog.Attr{
		slog.String("agent", agentID),
		slog.String("run", runID),
		slog.String("thread", threadID),
		slog.String("resource", resourceID),
		slog.String("processor", rec.Processor),
		slog.String("action", rec.Action),
	}
	if c := rec.Cause; c != nil {
		base = append(base, slog.Group("cause",
			slog.String("kind", c.Kind),
			slog.String("provider", c.Provider),
			slog.Int("status", c.Status),
			slog.String("code", c.Code),
			slog.String("message", c.Message),
			slog.String("mediaType", c.MediaType),
		))
	}
	if len(rec.Files) == 0 {
		s.logger.LogAttrs(ctx, slog.LevelInfo, "server: recovery", base...)
		return
	}
	for _, f := range rec.Files {
		attrs := append(base[:len(base):len(base)],
			slog.String("file", f.Name),
			slog.String("mediaType", f.MediaType),
			slog.Int64("size", f.Size),
			slog.String("sha256", f.SHA256),
			slog.String("outcome", f.Outcome),
		)
		if f.Path != "" {
			attrs = append(attrs, slog.String("path", f.Path))
		}
		if f.Reason != "" {
			attrs = append(attrs, slog.String("reason", f.Reason))
		}
		s.logger.LogAttrs(ctx, slog.LevelInfo, "server: recovery", attrs...)
	}
}
