package server

import (
	"log/slog"
	"net/http"

	"github.com/keel-go/keel/processor"
)

// logRecovery writes the log line of one recovery a run reported: what
// the processor did, to which files, in whose thread, and why (the cause
// group: kind, provider, status, code, message; absent when the processor
// acted on its own rule, not on an error).
func (s *Server) logRecovery(r *http.Request, agentID, runID, threadID, resourceID string, rec processor.Recovery) {
	files := rec.Files
	if files == nil {
		files = []processor.RecoveredFile{}
	}
	attrs := []slog.Attr{
		slog.String("agent", agentID),
		slog.String("run", runID),
		slog.String("thread", threadID),
		slog.String("resource", resourceID),
		slog.String("processor", rec.Processor),
		slog.String("action", rec.Action),
		slog.Any("files", files),
	}
	if c := rec.Cause; c != nil {
		attrs = append(attrs, slog.Group("cause",
			slog.String("kind", c.Kind),
			slog.String("provider", c.Provider),
			slog.Int("status", c.Status),
			slog.String("code", c.Code),
			slog.String("message", c.Message),
			slog.String("mediaType", c.MediaType),
		))
	}
	s.logger.LogAttrs(r.Context(), slog.LevelInfo, "server: recovery", attrs...)
}
