package refusal

import (
	"iter"
	"strings"
)

// Each yields the offset of each occurrence of word in l, first to last,
// overlapping ones included: the loop every hand scanner starts with,
// looking at each place its key word stands.
func Each(l, word string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for at := 0; ; {
			i := strings.Index(l[at:], word)
			if i < 0 || !yield(at+i) {
				return
			}
			at += i + 1
		}
	}
}

// Lower returns msg with its ASCII letters in lower case and every other
// byte as it is, so that an offset in one is the same offset in the
// other: an adapter finds words in the lower-case text and takes what it
// reports (a media type) from msg at the same place. It allocates only
// when msg holds an upper-case letter.
func Lower(msg string) string {
	i := 0
	for i < len(msg) && (msg[i] < 'A' || msg[i] > 'Z') {
		i++
	}
	if i == len(msg) {
		return msg
	}
	b := []byte(msg)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// IsSpace reports a space as a regular expression's \s means it: space,
// tab, newline, carriage return, form feed.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// IsWord reports a word byte as a regular expression's \w and \b mean
// it: an ASCII letter, a digit or an underscore.
func IsWord(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// StartsWord reports whether a word starts at l[i] (\b before a word
// byte): l[i] is a word byte and the byte before is not.
func StartsWord(l string, i int) bool {
	return i < len(l) && IsWord(l[i]) && (i == 0 || !IsWord(l[i-1]))
}

// EndsWord reports whether a word ends at l[i] (\b after a word byte):
// the byte before is a word byte and l[i], if any, is not.
func EndsWord(l string, i int) bool {
	return i > 0 && IsWord(l[i-1]) && (i == len(l) || !IsWord(l[i]))
}

// SkipSpaces returns the offset of the first byte at or after i that is
// not a space.
func SkipSpaces(l string, i int) int {
	for i < len(l) && IsSpace(l[i]) {
		i++
	}
	return i
}

// SpacesBefore returns the offset where the spaces that end at l[i]
// start (i when there are none).
func SpacesBefore(l string, i int) int {
	for i > 0 && IsSpace(l[i-1]) {
		i--
	}
	return i
}

// Suffix returns the word of words that l[:i] ends with, or "".
func Suffix(l string, i int, words ...string) string {
	for _, w := range words {
		if len(w) <= i && l[i-len(w):i] == w {
			return w
		}
	}
	return ""
}

// Prefix returns the word of words that l[i:] starts with, or "".
func Prefix(l string, i int, words ...string) string {
	for _, w := range words {
		if len(w) <= len(l)-i && l[i:i+len(w)] == w {
			return w
		}
	}
	return ""
}

// PhraseAfter reports whether one of phrases starts a word within n
// characters after l[from:], every character before it passing keep:
// what a pattern "from here, up to n of [class], then a word boundary
// and a phrase" matches (".{0,120}\b(?:not found|...)"). Characters are
// counted as runes, as a regular expression counts them.
func PhraseAfter(l string, from, n int, keep func(byte) bool, phrases ...string) bool {
	chars := 0
	for p := from; p < len(l); p++ {
		if p > from {
			c := l[p-1]
			if !keep(c) {
				return false
			}
			if c&0xC0 != 0x80 {
				chars++
			}
			if chars > n {
				return false
			}
		}
		if (p == 0 || !IsWord(l[p-1])) && Prefix(l, p, phrases...) != "" {
			return true
		}
	}
	return false
}
