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

// sizePattern finds a size in an error text: "20971520 bytes", "5 MB",
// "5242880 bytes > ..." (the first size after a word saying it is a
// limit wins; see SizeLimit).
var sizePattern = regexp.MustCompile(`(?i)(\d[\d,]*(?:\.\d+)?)\s*(bytes|byte|b|kb|kib|mb|mib|gb|gib)\b`)

// limitWord marks the size that is the limit in a text that states
// several ("image exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes").
var limitWord = regexp.MustCompile(`(?i)(limit|maximum|max|at most|up to|exceeds?|larger than|more than|over)`)

// SizeLimit returns the size limit an error text states, in bytes, or 0.
// When the text gives several sizes, the one right after "limit",
// "maximum", "exceeds" and the like is the limit; else the last one
// ("7251404 bytes > 5242880 bytes").
func SizeLimit(msg string) int64 {
	all := sizePattern.FindAllStringSubmatchIndex(msg, 8)
	if len(all) == 0 {
		return 0
	}
	pick := all[len(all)-1]
	for _, m := range all {
		before := msg[:m[0]]
		if w := limitWord.FindAllStringIndex(before, -1); len(w) > 0 && len(strings.TrimSpace(before[w[len(w)-1][1]:])) <= 2 {
			pick = m
			break
		}
	}
	limit := parseSize(msg[pick[2]:pick[3]], msg[pick[4]:pick[5]])
	// "5 MB maximum: 7251404 bytes > 5242880 bytes": the same limit in
	// bytes is exact where "5 MB" is rounded.
	for _, m := range all {
		v := parseSize(msg[m[2]:m[3]], msg[m[4]:m[5]])
		if strings.HasPrefix(strings.ToLower(msg[m[4]:m[5]]), "b") && v != limit && v > limit*9/10 && v < limit*11/10 {
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

// pagePattern finds a page limit: "A maximum of 100 PDF pages", "more
// than 1000 pages", "exceeds the limit of 100 pages".
var pagePattern = regexp.MustCompile(`(?i)(\d[\d,]*)\s+(?:pdf\s+)?pages?\b`)

// PageLimit returns the page limit an error text states, or 0.
func PageLimit(msg string) int64 {
	m := pagePattern.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// SaysPages reports whether an error text is about a page count.
func SaysPages(msg string) bool {
	l := strings.ToLower(msg)
	return strings.Contains(l, "pages") && limitWord.MatchString(l)
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
