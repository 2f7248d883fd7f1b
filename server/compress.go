package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/keel-go/keel/internal/httpgzip"
)

// Bounds of compressed JSON answers: below minGzipBytes a gzip header
// costs more than it saves; above maxGzipBytes the answer is mostly file
// data (base64, which gzip barely shrinks), and compressing it would cost
// the server more time than the transfer saves on a local network.
const (
	minGzipBytes = 1 << 10
	maxGzipBytes = 4 << 20
)

// writeJSONFor is writeJSON for answers that can be large, such as a
// thread's messages: gzipped when the client takes gzip and the body is
// within the bounds above. A 200-message thread is about a tenth of its
// size so; clients that do not ask (Mastra's client asks, as every fetch
// does) get it plain.
func writeJSONFor(w http.ResponseWriter, r *http.Request, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil || len(b) < minGzipBytes || len(b) > maxGzipBytes || !httpgzip.Accepted(r.Header.Get("Accept-Encoding")) {
		writeJSON(w, status, v)
		return
	}
	var buf bytes.Buffer
	buf.Grow(len(b) / 4)
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := zw.Write(b); err != nil || zw.Close() != nil {
		writeJSON(w, status, v)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
