package main_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// What an SDK writes with the standard logger (genai warns this way when
// both of its key variables are set) comes out as keel's own log records,
// not as lines of another format beside them.
func TestStandardLoggerGoesToSlog(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	s := startServe(t, t.TempDir(), geminiEnv(srv, "GOOGLE_API_KEY=a", "GEMINI_API_KEY=b"), loopback...)
	defer s.stop(t)
	const warning = "Both GOOGLE_API_KEY and GEMINI_API_KEY are set"
	var line string
	for _, l := range strings.Split(s.Stderr(), "\n") {
		if strings.Contains(l, warning) {
			line = l
		}
	}
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, `msg="Warning: `+warning) {
		t.Errorf("Got(genai's warning) = %q; want a slog record at WARN\nstderr: %s", line, s.Stderr())
	}
	if stdlog := regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d `); stdlog.MatchString(s.Stderr()) {
		t.Errorf("Got(stderr) = %s; want no line in the standard logger's format", s.Stderr())
	}
}
