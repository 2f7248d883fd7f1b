package server

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// An answer is gzipped when its JSON is from minGzipBytes to maxGzipBytes
// long, both included, and sent plain outside. Internal: a route's answer
// cannot be made an exact length.
func TestGzipBounds(t *testing.T) {
	for _, c := range []struct {
		size int
		gzip bool
	}{
		{minGzipBytes - 1, false}, {minGzipBytes, true}, {maxGzipBytes, true}, {maxGzipBytes + 1, false},
	} {
		// A JSON string of c.size bytes, quotes included.
		v := json.RawMessage(`"` + strings.Repeat("a", c.size-2) + `"`)
		r := httptest.NewRequest("GET", "/api/memory/threads/t/messages", nil)
		r.Header.Set("Accept-Encoding", "gzip")
		w := httptest.NewRecorder()
		writeJSONFor(w, r, 200, v)
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != c.gzip {
			t.Errorf("Got(gzip for %d bytes) = %v; want %v", c.size, got, c.gzip)
		}
	}
}
