package workspace

import "strings"

// ShellQuote returns s quoted for a POSIX shell, so that the shell reads it
// back as exactly one word equal to s. It always uses single quotes, inside
// which a POSIX shell gives no character a special meaning; each single
// quote of s ends the quoted text, is written escaped, and the quoting
// starts again. The empty string becomes two single quotes:
//
//	ShellQuote("it's")  // 'it'\''s'
//	ShellQuote("")      // ''
//
// Any byte string survives the round trip except one holding a NUL byte:
// no shell word, argument or command line can hold NUL, whatever the
// quoting. Paths built by [Upload] never do.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
