package convert

import (
	"bytes"
	"io"
)

// htmlRuns sits between a page's bytes and golang.org/x/net/html's
// tokenizer and breaks runs of text that would not fit one token. The
// tokenizer keeps a whole text token in its buffer, which is bounded
// (maxTokenBytes) so that a page cannot make it grow without end; but a
// paragraph of tens of megabytes with no markup in it is not an attack,
// and the reader of the page is better served by its first characters,
// cut at the cap like any long paragraph, than by an error. So, once a
// run of text outside tags is long, an empty <wbr> element (a line-break
// opportunity, which the writer ignores) is inserted: after the next
// space once the run reaches runSoft bytes, or before the next
// character once it reaches runHard without a space. It is never put
// inside a tag, a UTF-8 sequence or a character reference, so the text
// read is the same, only in more tokens.
//
// What a "tag" is follows the tokenizer's rule that '<' opens one only
// before a letter, '/', '!' or '?'; a '>' inside a quoted attribute value
// is taken as the tag's end, which at worst lets a <wbr> land inside a
// value of more than runSoft bytes. Tags, comments and attribute values
// are never broken otherwise, and one longer than maxTokenBytes is still
// refused by the tokenizer.
type htmlRuns struct {
	src   io.Reader
	in    []byte
	out   []byte // what the tokenizer has yet to read
	next  int    // out[next:] is unread
	inTag bool
	lt    bool // the last byte was '<' and the next decides
	run   int  // bytes of the current text run
	amp   int  // bytes since the last '&' in the run, refMax after a ';'

	err error
}

const (
	runSoft = maxTokenBytes / 16
	runHard = maxTokenBytes / 4
	// refMax is longer than any character reference (&CounterClockwiseContourIntegral;).
	refMax = 40
)

var wbr = []byte("<wbr>")

func newHTMLRuns(src io.Reader) *htmlRuns {
	return &htmlRuns{src: src, in: make([]byte, 32<<10), amp: refMax}
}

func (r *htmlRuns) Read(p []byte) (int, error) {
	for r.next == len(r.out) {
		if r.err != nil {
			return 0, r.err
		}
		n, err := r.src.Read(r.in)
		r.err = err
		r.out, r.next = r.scan(r.out[:0], r.in[:n]), 0
	}
	n := copy(p, r.out[r.next:])
	r.next += n
	return n, nil
}

// scan appends b to out with the breaks its text runs need. Tags and
// runs shorter than runSoft are skipped with bytes.IndexByte; only the
// bytes of a long run are looked at one by one, from runSoft on, which
// is also where the count of bytes since the last '&' starts (as if one
// had just been read: a break waits refMax bytes or a ';').
func (r *htmlRuns) scan(out, b []byte) []byte {
	from := 0
	for i := 0; i < len(b); {
		if r.lt {
			r.lt = false
			if c := b[i] | 0x20; c == '/' || c == '!' || c == '?' || 'a' <= c && c <= 'z' {
				r.inTag, r.run = true, 0
			}
		}
		if r.inTag {
			j := bytes.IndexByte(b[i:], '>')
			if j < 0 {
				break
			}
			r.inTag = false
			i += j + 1
			continue
		}
		end := len(b)
		if j := bytes.IndexByte(b[i:], '<'); j >= 0 {
			end = i + j
		}
		for i < end {
			if r.run < runSoft {
				k := min(end-i, runSoft-r.run)
				r.run += k
				i += k
				r.amp = 0
				continue
			}
			c := b[i]
			if r.run >= runHard && r.amp >= refMax && c&0xC0 != 0x80 {
				out = append(append(out, b[from:i]...), wbr...)
				from, r.run = i, 0
				continue
			}
			r.run++
			switch r.amp++; c {
			case '&':
				r.amp = 0
			case ';':
				r.amp = refMax
			}
			i++
			if r.run >= runSoft && (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f') {
				out = append(append(out, b[from:i]...), wbr...)
				from, r.run = i, 0
			}
		}
		if end < len(b) {
			r.lt = true
			i = end + 1
		}
	}
	return append(out, b[from:]...)
}
