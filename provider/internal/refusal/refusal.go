// Package refusal holds the readings of error texts that every adapter
// shares: the limits an answer states (bytes, pages) and the title of an
// HTML error page, and the [Fault] each adapter's reading comes to. What
// a provider's answer means stays in the adapter that knows the provider
// (its error.go); this package only reads numbers and markup out of text.
package refusal

import (
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/keel-go/keel"
)

// Fault is what an error answer says is wrong with the request: the
// fields of keel.APICallError each adapter's classify fills in (Fault,
// MediaType, MediaClass, Limit).
type Fault struct {
	Kind      keel.Fault
	MediaType string
	Class     string
	Limit     int64
}

// The readings below scan the text by hand: a regular expression for
// "a number, then a unit" costs tens of microseconds a message in Go's
// backtracking matcher, and every failed call is read (BenchmarkClassify
// in each adapter). They read the message in lower case ([Lower]).

// size is a size found in an error text: the number, its unit and its
// value in bytes.
type size struct {
	start int // where the number starts
	unit  byte
	bytes int64
}

// sizes finds up to len(out) sizes in a lower-case error text: "20971520
// bytes", "5 mb", "5242880 bytes > ...": a number (digits, commas, a
// decimal part), optional spaces, and a unit word (bytes, byte, b, kb,
// kib, mb, mib, gb, gib) ending there.
func sizes(l string, out []size) []size {
	n := 0
	for i := 0; i < len(l) && n < len(out); {
		if !isDigit(l[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(l) && (isDigit(l[j]) || l[j] == ',') {
			j++
		}
		if j+1 < len(l) && l[j] == '.' && isDigit(l[j+1]) {
			j += 2
			for j < len(l) && isDigit(l[j]) {
				j++
			}
		}
		k := j
		for k < len(l) && IsSpace(l[k]) {
			k++
		}
		u := k
		for u < len(l) && isLetter(l[u]) {
			u++
		}
		if u > k && (u == len(l) || !isDigit(l[u]) && l[u] != '_') {
			if mult := unitBytes(l[k:u]); mult > 0 {
				out[n] = size{start: i, unit: l[k], bytes: parseSize(l[i:j], mult)}
				n++
				i = u
				continue
			}
		}
		i = j
	}
	return out[:n]
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// unitBytes is the bytes in one of a lower-case unit, or 0 when w is none.
func unitBytes(w string) float64 {
	switch w {
	case "bytes", "byte", "b":
		return 1
	case "kb":
		return 1e3
	case "kib":
		return 1 << 10
	case "mb":
		return 1e6
	case "mib":
		return 1 << 20
	case "gb":
		return 1e9
	case "gib":
		return 1 << 30
	}
	return 0
}

// limitWords mark the size that is the limit in a text that states
// several ("image exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes").
var limitWords = [...]string{"limit", "maximum", "max", "at most", "up to", "exceeds", "exceed", "larger than", "more than", "over"}

// hasLimitWord reports whether l holds a word saying "limit".
func hasLimitWord(l string) bool {
	for _, w := range limitWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// afterLimitWord reports whether the number at l[start] follows a word
// saying "limit", with at most two other characters between besides
// spaces ("maximum: 5 MB", "limit of 5 MB" does not).
func afterLimitWord(l string, start int) bool {
	k := start // where the spaces before the number start
	for k > 0 && IsSpace(l[k-1]) {
		k--
	}
	for e := start; e >= 0; e-- {
		if e < start && !IsSpace(l[e]) && e < k-2 {
			return false
		}
		for _, w := range limitWords {
			if strings.HasSuffix(l[:e], w) {
				return true
			}
		}
	}
	return false
}

// SizeLimit returns the size limit a lower-case error text ([Lower])
// states, in bytes, or 0. When the text gives several sizes, the one
// right after "limit", "maximum", "exceeds" and the like is the limit;
// else the last one ("7251404 bytes > 5242880 bytes").
func SizeLimit(l string) int64 {
	var buf [8]size
	all := sizes(l, buf[:])
	if len(all) == 0 {
		return 0
	}
	pick := all[len(all)-1]
	for _, m := range all {
		if afterLimitWord(l, m.start) {
			pick = m
			break
		}
	}
	limit := pick.bytes
	// "5 mb maximum: 7251404 bytes > 5242880 bytes": the same limit in
	// bytes is exact where "5 mb" is rounded.
	for _, m := range all {
		if v := m.bytes; m.unit == 'b' && v != limit && v > limit*9/10 && v < limit*11/10 {
			return v
		}
	}
	return limit
}

func parseSize(num string, mult float64) int64 {
	if strings.IndexByte(num, ',') >= 0 {
		num = strings.ReplaceAll(num, ",", "")
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || v > 1<<53 {
		return 0
	}
	return int64(v * mult)
}

// PageLimit returns the page limit a lower-case error text ([Lower])
// states, or 0: the first number followed by "pages", "page", "pdf pages"
// ("a maximum of 100 pdf pages", "more than 1000 pages", "exceeds the
// limit of 100 pages").
func PageLimit(l string) int64 {
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
	for k < len(l) && IsSpace(l[k]) {
		k++
	}
	if k == j {
		return 0, false
	}
	rest := l[k:]
	if r, ok := strings.CutPrefix(rest, "pdf"); ok && r != "" && IsSpace(r[0]) {
		rest = strings.TrimLeft(r, " \t\n\r\f")
	}
	w, ok := strings.CutPrefix(rest, "page")
	if !ok {
		return 0, false
	}
	w = strings.TrimPrefix(w, "s")
	if w != "" && IsWord(w[0]) {
		return 0, false
	}
	num := l[i:j]
	if strings.IndexByte(num, ',') >= 0 {
		num = strings.ReplaceAll(num, ",", "")
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, true
	}
	return n, true
}

// SaysPages reports whether a lower-case error text ([Lower]) is about a
// page count.
func SaysPages(l string) bool {
	return strings.Contains(l, "pages") && hasLimitWord(l)
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
