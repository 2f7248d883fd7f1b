package dockersandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
)

func frame(stream byte, payload string) []byte {
	h := make([]byte, 8, 8+len(payload))
	h[0] = stream
	binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
	return append(h, payload...)
}

// TestDemux: frames go to their stream; a system frame is the engine's
// error; a stream cut mid-frame is an error, not silent loss.
func TestDemux(t *testing.T) {
	var in bytes.Buffer
	in.Write(frame(streamStdout, "out1 "))
	in.Write(frame(streamStderr, "err"))
	in.Write(frame(streamStdout, ""))
	in.Write(frame(streamStdout, "out2"))
	var out, errb bytes.Buffer
	if err := demux(&in, &out, &errb); err != nil || out.String() != "out1 out2" || errb.String() != "err" {
		t.Errorf("Got(demux) = %q, %q, %v; want %q, %q, nil", out.String(), errb.String(), err, "out1 out2", "err")
	}
	var sys *errSystem
	if err := demux(bytes.NewReader(frame(streamSystem, "exec failed")), io.Discard, io.Discard); !errors.As(err, &sys) || !strings.Contains(err.Error(), "exec failed") {
		t.Errorf("Got(demux of a system frame) error %v; want the engine's message", err)
	}
	cut := frame(streamStdout, "0123456789")[:12]
	if err := demux(bytes.NewReader(cut), io.Discard, io.Discard); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Got(demux of a cut frame) error %v; want io.ErrUnexpectedEOF", err)
	}
	if err := demux(bytes.NewReader([]byte{9, 0, 0, 0, 0, 0, 0, 1, 'x'}), io.Discard, io.Discard); err == nil {
		t.Errorf("Got(demux of an unknown stream) no error; want one")
	}
}

// TestDiskFilter: the wrapper's first and last lines are taken out of a
// command's stderr and read, whatever the cap and however the bytes come.
func TestDiskFilter(t *testing.T) {
	const token = "abc123"
	head := "keel-du 0 8192\n"
	tail := func(v string) string { return "\nkeel-du abc123\nkeel-du 0 " + v + "\n" }
	for _, tc := range []struct {
		name, stream        string
		max                 int
		want                string
		truncated           bool
		before, after       int64
		beforeErr, afterErr error
	}{
		{"plain", head + "hello\n" + tail("12288"), 100, "hello\n", false, 8 << 10, 12 << 10, nil, nil},
		{"no newline at end", head + "hello" + tail("12288"), 100, "hello", false, 8 << 10, 12 << 10, nil, nil},
		{"empty", "keel-du 0 0\n" + tail("4096"), 100, "", false, 0, 4 << 10, nil, nil},
		{"capped", head + strings.Repeat("x", 50) + tail("12288"), 10, strings.Repeat("x", 10), true, 8 << 10, 12 << 10, nil, nil},
		{"exactly the cap", head + "0123456789" + tail("12288"), 10, "0123456789", false, 8 << 10, 12 << 10, nil, nil},
		{"du failed", "keel-du 1\nout\nkeel-du abc123\nkeel-du 1\n", 100, "out", false, 0, 0, errUnreadable, errUnreadable},
		{"too many files", "keel-du 2\nout\nkeel-du abc123\nkeel-du 2\n", 100, "out", false, 0, 0, errTooManyFiles, errTooManyFiles},
		{"garbled", "keel-du 0 x\nout\nkeel-du abc123\nkeel-du 7\n", 100, "out", false, 0, 0, errNotMeasured, errNotMeasured},
		{"forged token", head + "\nkeel-du other\nkeel-du 0 1\n", 100, "\nkeel-du other\nkeel-du 0 1\n", false, 8 << 10, 0, nil, errNotMeasured},
		{"killed before the end", head + "partial", 100, "partial", false, 8 << 10, 0, nil, errNotMeasured},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, chunk := range []int{1, 3, 1 << 20} {
				f := newDiskFilter(tc.max, token, true)
				for s := tc.stream; s != ""; {
					n := min(chunk, len(s))
					_, _ = f.Write([]byte(s[:n]))
					s = s[n:]
				}
				got, truncated := f.result()
				before, berr := f.beforeValue()
				after, aerr := f.afterValue()
				if string(got) != tc.want || truncated != tc.truncated || before != tc.before || berr != tc.beforeErr || after != tc.after || aerr != tc.afterErr {
					t.Errorf("chunks of %d: Got(%q, %v, before %d %v, after %d %v); want (%q, %v, %d %v, %d %v)", chunk,
						got, truncated, before, berr, after, aerr, tc.want, tc.truncated, tc.before, tc.beforeErr, tc.after, tc.afterErr)
				}
			}
		})
	}
	// Without measuring, stderr passes whole.
	f := newDiskFilter(100, token, false)
	_, _ = f.Write([]byte("keel-du 0 8\nx"))
	if got, _ := f.result(); string(got) != "keel-du 0 8\nx" {
		t.Errorf("Got(unmeasured stderr) = %q; want it whole", got)
	}
}

// TestParseListing: names with newlines, spaces and tabs survive; types
// and sizes are read; bad output is an error.
func TestParseListing(t *testing.T) {
	out := "4\nb\x00a\nnew line\x00c d\x00link\x00" + "81a4 5 1700000000\n41ed 4096 1700000001\n1000 0 1700000002\na1ff 3 1700000003\n"
	entries, err := parseListing([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		fi, _ := e.Info()
		got = append(got, e.Name()+"|"+fi.Mode().String()+"|"+string(rune('0'+fi.Size()%10)))
	}
	want := []string{"a\nnew line|drwxr-xr-x|6", "b|-rw-r--r--|5", "c d|p---------|0", "link|Lrwxrwxrwx|3"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Got(parseListing) = %q; want %q", got, want)
	}
	if e, _ := parseListing([]byte("0\n")); len(e) != 0 {
		t.Errorf("Got(parseListing of an empty directory) = %v; want none", e)
	}
	for _, bad := range []string{"", "x\n", "2\na\x00", "1\na\x00zz 1 1\n", "1\na\x00"} {
		if _, err := parseListing([]byte(bad)); err == nil {
			t.Errorf("Got(parseListing(%q)) no error; want one", bad)
		}
	}
	if m := fileMode(0o104755); m&fs.ModeSetuid == 0 || !m.IsRegular() {
		t.Errorf("Got(fileMode(setuid file)) = %v; want a setuid regular file", m)
	}
}
