// Package refusal holds the readings of error texts that every adapter
// shares: the limits an answer states (bytes, pages) and the title of an
// HTML error page. What a provider's answer means stays in the adapter
// that knows the provider (its error.go); this package only reads numbers
// and markup out of text.
package refusal

import (
	"html"
	"regexp"
	"strconv"
	"strings"
)

// The readings below scan the text by hand: a regular expression for
// "a number, then a unit" costs tens of microseconds a message in Go's
// backtracking matcher, and every failed call is read (BenchmarkClassify
// in each adapter).

// size is a size found in an error text: the number and its unit.
type size struct {
	start     int // where the number starts
	num, unit string
}

// sizes finds up to max sizes in an error text: "20971520 bytes",
// "5 MB", "5242880 bytes > ...": a number (digits, commas, a decimal
// part), optional spaces, and a unit word (bytes, byte, b, kb, kib, mb,
// mib, gb, gib, in any case) ending there.
func sizes(msg string, max int) []size {
	var out []size
	for i := 0; i < len(msg) && len(out) < max; {
		if !isDigit(msg[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(msg) && (isDigit(msg[j]) || msg[j] == ',') {
			j++
		}
		if j+1 < len(msg) && msg[j] == '.' && isDigit(msg[j+1]) {
			j += 2
			for j < len(msg) && isDigit(msg[j]) {
				j++
			}
		}
		k := j
		for k < len(msg) && isSpace(msg[k]) {
			k++
		}
		u := k
		for u < len(msg) && isLetter(msg[u]) {
			u++
		}
		if u > k && (u == len(msg) || !isDigit(msg[u]) && msg[u] != '_') && isUnit(msg[k:u]) {
			out = append(out, size{start: i, num: msg[i:j], unit: msg[k:u]})
			i = u
			continue
		}
		i = j
	}
	return out
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isUnit(w string) bool {
	switch strings.ToLower(w) {
	case "bytes", "byte", "b", "kb", "kib", "mb", "mib", "gb", "gib":
		return true
	}
	return false
}

// limitWords mark the size that is the limit in a text that states
// several ("image exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes").
var limitWords = []string{"limit", "maximum", "max", "at most", "up to", "exceeds", "exceed", "larger than", "more than", "over"}

// lastLimitWord returns where the last word saying "limit" in l (lower
// case) ends, or -1.
func lastLimitWord(l string) int {
	end := -1
	for _, w := range limitWords {
		if i := strings.LastIndex(l, w); i >= 0 {
			end = max(end, i+len(w))
		}
	}
	return end
}

// SizeLimit returns the size limit an error text states, in bytes, or 0.
// When the text gives several sizes, the one right after "limit",
// "maximum", "exceeds" and the like is the limit; else the last one
// ("7251404 bytes > 5242880 bytes").
func SizeLimit(msg string) int64 {
	all := sizes(msg, 8)
	if len(all) == 0 {
		return 0
	}
	pick := all[len(all)-1]
	for _, m := range all {
		// Lower case can change a text's length in bytes (ẞ is 3, ß 2):
		// each prefix is lowered on its own, keeping its offsets.
		before := strings.ToLower(msg[:m.start])
		if end := lastLimitWord(before); end >= 0 && len(strings.TrimSpace(before[end:])) <= 2 {
			pick = m
			break
		}
	}
	limit := parseSize(pick.num, pick.unit)
	// "5 MB maximum: 7251404 bytes > 5242880 bytes": the same limit in
	// bytes is exact where "5 MB" is rounded.
	for _, m := range all {
		v := parseSize(m.num, m.unit)
		if m.unit[0]|0x20 == 'b' && v != limit && v > limit*9/10 && v < limit*11/10 {
			return v
		}
	}
	return limit
}

func parseSize(num, unit string) int64 {
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil || v < 0 || v > 1<<53 {
		return 0
	}
	mult := float64(1)
	switch strings.ToLower(unit) {
	case "kb":
		mult = 1e3
	case "kib":
		mult = 1 << 10
	case "mb":
		mult = 1e6
	case "mib":
		mult = 1 << 20
	case "gb":
		mult = 1e9
	case "gib":
		mult = 1 << 30
	}
	return int64(v * mult)
}

// PageLimit returns the page limit an error text states, or 0: the first
// number followed by "pages", "page", "PDF pages" ("A maximum of 100 PDF
// pages", "more than 1000 pages", "exceeds the limit of 100 pages").
func PageLimit(msg string) int64 {
	l := strings.ToLower(msg)
	for i := 0; i < len(l); {
		if !isDigit(l[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(l) && (isDigit(l[j]) || l[j] == ',') {
			j++
		}
		if n, ok := pagesAfter(l, i, j); ok {
			return n
		}
		i = j
	}
	return 0
}

// pagesAfter reads "pages" after the number l[i:j].
func pagesAfter(l string, i, j int) (int64, bool) {
	k := j
	for k < len(l) && isSpace(l[k]) {
		k++
	}
	if k == j {
		return 0, false
	}
	rest := l[k:]
	if r, ok := strings.CutPrefix(rest, "pdf"); ok && r != "" && isSpace(r[0]) {
		rest = strings.TrimLeft(r, " \t\n\r\f\v")
	}
	w, ok := strings.CutPrefix(rest, "page")
	if !ok {
		return 0, false
	}
	w = strings.TrimPrefix(w, "s")
	if w != "" && (isLetter(w[0]) || isDigit(w[0]) || w[0] == '_') {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(l[i:j], ",", ""), 10, 64)
	if err != nil || n < 0 {
		return 0, true
	}
	return n, true
}

// SaysPages reports whether an error text is about a page count.
func SaysPages(msg string) bool {
	l := strings.ToLower(msg)
	return strings.Contains(l, "pages") && lastLimitWord(l) >= 0
}

var titlePattern = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

var h1Pattern = regexp.MustCompile(`(?is)<h1[^>]*>(.*?)</h1>`)

var tagPattern = regexp.MustCompile(`(?s)<[^>]*>`)

// IsHTML reports whether an error body is an HTML page (a proxy's or a
// load balancer's error page) rather than the provider's JSON.
func IsHTML(contentType, body string) bool {
	if strings.Contains(strings.ToLower(contentType), "html") {
		return true
	}
	b := strings.ToLower(strings.TrimSpace(body))
	if len(b) > 512 {
		b = b[:512]
	}
	return strings.HasPrefix(b, "<!doctype html") || strings.HasPrefix(b, "<html") || strings.Contains(b, "<head") || strings.Contains(b, "<body")
}

// HTMLTitle returns the title of an HTML page, else the text of its
// first heading, as one line of at most 200 characters; "" when it has
// neither.
func HTMLTitle(body string) string {
	if len(body) > 64<<10 {
		body = body[:64<<10]
	}
	t := ""
	if m := titlePattern.FindStringSubmatch(body); m != nil {
		t = m[1]
	} else if m := h1Pattern.FindStringSubmatch(body); m != nil {
		t = m[1]
	}
	t = html.UnescapeString(tagPattern.ReplaceAllString(t, " "))
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > 200 {
		t = string(r[:200])
	}
	return t
}

// From returns msg from a little before the first place its lower-case
// form lower holds key: back bytes earlier, then back to a word's start,
// so that a pattern whose words sit around key runs over a few dozen
// bytes instead of the whole message. It returns msg whole when key is
// not there or lower is not msg's lower case byte for byte.
func From(msg, lower, key string, back int) string {
	return from(msg, lower, strings.Index(lower, key), back)
}

// FromLast is [From] from the last place lower holds key: for words
// that end a message ("... required for image input").
func FromLast(msg, lower, key string, back int) string {
	return from(msg, lower, strings.LastIndex(lower, key), back)
}

func from(msg, lower string, i, back int) string {
	if i < 0 || len(lower) != len(msg) {
		return msg
	}
	i = max(i-back, 0)
	for i > 0 && (isLetter(msg[i-1]) || isDigit(msg[i-1]) || msg[i-1] == '_') {
		i--
	}
	return msg[i:]
}
