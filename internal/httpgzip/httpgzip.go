// Package httpgzip holds what keel's HTTP handlers share about gzip: which
// requests take it.
package httpgzip

import "strings"

// Accepted reports whether an Accept-Encoding header takes gzip: it names
// gzip (or "*") without a q of zero.
func Accepted(header string) bool {
	for _, v := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(v), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "*" {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(strings.ToLower(params), " ", ""), "q=")
		return !ok || strings.Trim(q, "0.") != ""
	}
	return false
}
