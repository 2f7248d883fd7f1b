package server

import (
	"log/slog"
	"net/http"

	"github.com/keel-go/keel/processor"
)

// logRecovery writes the log line of one recovery a run reported: what
// the processor did, to which files, in whose thread.
func (s *Server) logRecovery(r *http.Request, agentID, runID, threadID, resourceID string, rec processor.Recovery) {
	files := rec.Files
	if files == nil {
		files = []processor.RecoveredFile{}
	}
	s.logger.LogAttrs(r.Context(), slog.LevelInfo, "server: recovery",
		slog.String("agent", agentID),
		slog.String("run", runID),
		slog.String("thread", threadID),
		slog.String("resource", resourceID),
		slog.String("processor", rec.Processor),
		slog.String("action", rec.Action),
		slog.Any("files", files),
	)
}
