package convert

import (
	"html"
	"regexp"
	"strings"
)

// HTML e-mail bodies are turned into text with a few rules rather than a
// parser: the text is for a model to read, not to render. Scripts,
// styles and the head go; block ends become line ends, list items get a
// dash; entities are decoded.
var (
	htmlDrop   = regexp.MustCompile(`(?is)<(script|style|head|title)\b.*?</(script|style|head|title)\s*>|<!--.*?-->`)
	htmlBreak  = regexp.MustCompile(`(?i)<br\s*/?>|</(p|div|tr|h[1-6]|li|ul|ol|table|blockquote|pre)\s*>`)
	htmlItem   = regexp.MustCompile(`(?i)<li\b[^>]*>`)
	htmlCell   = regexp.MustCompile(`(?i)</t[dh]\s*>`)
	htmlTag    = regexp.MustCompile(`(?s)<[^>]*>`)
	blankLines = regexp.MustCompile(`\n{3,}`)
)

func htmlToText(s string) string {
	s = htmlDrop.ReplaceAllString(s, "")
	s = htmlBreak.ReplaceAllString(s, "\n")
	s = htmlItem.ReplaceAllString(s, "- ")
	s = htmlCell.ReplaceAllString(s, "\t")
	s = htmlTag.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.TrimSpace(blankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
