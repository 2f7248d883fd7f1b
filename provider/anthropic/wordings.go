package anthropic

import (
	"strings"

	"github.com/keel-go/keel/provider/internal/refusal"
)

// The wordings of the answers classify reads, each found by hand (a
// regular expression over a message costs microseconds in Go's matcher;
// these cost tens of nanoseconds, BenchmarkClassify). The comment over
// each function gives the regular expression it reads;
// wordings_internal_test.go holds the two to the same answers.

// partPath finds the block an answer points at, messages.N.content.M,
// then the block's kind (image, document, pdf), and returns N, M and the
// kind, or "", "", "":
//
//	messages\.(\d+)\.content\.(\d+)\.(image|document|pdf)\b
func partPath(msg string) (n, m, kind string) {
	for i := range refusal.Each(msg, "messages.") {
		i += len("messages.")
		j := digitsAt(msg, i)
		if j == i || !strings.HasPrefix(msg[j:], ".content.") {
			continue
		}
		k := j + len(".content.")
		e := digitsAt(msg, k)
		if e == k || e >= len(msg) || msg[e] != '.' {
			continue
		}
		w := refusal.Prefix(msg, e+1, "image", "document", "pdf")
		if w != "" && refusal.EndsWord(msg, e+1+len(w)) {
			return msg[i:j], msg[k:e], w
		}
	}
	return "", "", ""
}

// digitsAt returns where the digits starting at s[i] end.
func digitsAt(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// saysFileGone finds, in a lower-case message, an answer about a file
// ID that is not there ("File not found: file_011..."):
//
//	\bfile\b[^.]{0,80}\b(?:not found|does not exist|was deleted)|\bfile_[0-9a-z]+\b[^.]{0,40}\bnot found
func saysFileGone(l string) bool {
	for i := range refusal.Each(l, "file") {
		if !refusal.StartsWord(l, i) {
			continue
		}
		e := i + len("file")
		if refusal.EndsWord(l, e) && refusal.PhraseAfter(l, e, 80, notDot, "not found", "does not exist", "was deleted") {
			return true
		}
		if e < len(l) && l[e] == '_' {
			k := e + 1
			for k < len(l) && ('0' <= l[k] && l[k] <= '9' || 'a' <= l[k] && l[k] <= 'z') {
				k++
			}
			if k > e+1 && refusal.EndsWord(l, k) && refusal.PhraseAfter(l, k, 40, notDot, "not found") {
				return true
			}
		}
	}
	return false
}

func notDot(c byte) bool { return c != '.' }
