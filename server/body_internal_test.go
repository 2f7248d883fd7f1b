package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlineWriter is a ResponseWriter that notes the read deadlines set
// through http.ResponseController, as net/http's sets them on the
// connection.
type deadlineWriter struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (w *deadlineWriter) SetReadDeadline(t time.Time) error {
	w.deadlines = append(w.deadlines, t)
	return nil
}

// countingBody is a request body of size bytes (negative: endless) that
// notes the length of each read asked of it.
type countingBody struct {
	size  int64
	read  int64
	reads []int
}

func (b *countingBody) Read(p []byte) (int, error) {
	b.reads = append(b.reads, len(p))
	if b.size >= 0 && b.read >= b.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	if b.size >= 0 {
		n = min(n, b.size-b.read)
	}
	clear(p[:n])
	b.read += n
	return int(n), nil
}

func (b *countingBody) Close() error { return nil }

// A body left unread after its answer is drained within maxDrainBytes and
// maxDrainTime: read to its end when it is short, cut after maxDrainBytes
// when it is not (and the connection then given up at once), bounded by a
// read deadline of maxDrainTime when the rate rule sets none, and not read
// at all when the client waits for "100 Continue" and was never asked.
// Internal: only the ResponseController sees the deadlines without a
// client stalling for 30 s, and only the body sees how it was read.
func TestDrainIsBounded(t *testing.T) {
	cases := []struct {
		name      string
		size      int64 // negative: endless
		already   int64 // bytes the handler read before the drain
		expect100 bool
		wantRead  int64
		wantEOF   bool
		// the deadlines: the drain's own (maxDrainTime from now), and
		// "now" when the connection is given up
		wantDrainDeadline, wantGiveUp bool
	}{
		{name: "short", size: 100 << 10, wantRead: 100 << 10, wantEOF: true, wantDrainDeadline: true},
		{name: "endless", size: -1, wantRead: maxDrainBytes, wantDrainDeadline: true, wantGiveUp: true},
		{name: "never asked for", size: 100 << 10, expect100: true, wantGiveUp: true},
		{name: "asked for and begun", size: 100 << 10, already: 10, expect100: true, wantRead: 100 << 10, wantEOF: true, wantDrainDeadline: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := &countingBody{size: c.size}
			w := &deadlineWriter{ResponseRecorder: httptest.NewRecorder()}
			b := &guardedBody{body: body, rc: http.NewResponseController(w), start: time.Now(), continueWanted: c.expect100}
			if c.already > 0 {
				if _, err := b.Read(make([]byte, c.already)); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			b.drain()
			if body.read != c.wantRead || b.eof != c.wantEOF {
				t.Errorf("Got(drain) read %d bytes, at the end %v; want %d, %v", body.read, b.eof, c.wantRead, c.wantEOF)
			}
			for _, n := range body.reads {
				if n == 0 {
					t.Errorf("Got(reads) one of 0 bytes among %d; want each asking for some", len(body.reads))
					break
				}
			}
			var drainDeadline, giveUp bool
			for _, d := range w.deadlines {
				switch {
				case d.Sub(start) >= maxDrainTime-time.Second && d.Sub(start) <= maxDrainTime+time.Second:
					drainDeadline = true
				case d.Sub(start) >= 0 && time.Since(d) >= 0:
					giveUp = true
				default:
					t.Errorf("Got(read deadline) %v after the drain began; want %v or now", d.Sub(start), maxDrainTime)
				}
			}
			if drainDeadline != c.wantDrainDeadline || giveUp != c.wantGiveUp {
				t.Errorf("Got(deadlines) %v: drain's own %v, given up %v; want %v, %v",
					w.deadlines, drainDeadline, giveUp, c.wantDrainDeadline, c.wantGiveUp)
			}
		})
	}
}
