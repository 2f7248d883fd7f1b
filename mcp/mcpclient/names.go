package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// MaxServerName is the longest server name [Start] takes: the name starts
// the names of the server's tools, which models take up to
// [MaxToolName] characters.
const MaxServerName = 32

// MaxToolName is the longest tool name a model is given: 64 characters,
// the limit of OpenAI's and Anthropic's APIs.
const MaxToolName = 64

var serverNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// ValidServerName reports whether name can name a server: 1 to
// [MaxServerName] letters, digits, '_' or '-'.
func ValidServerName(name string) bool { return serverNameRE.MatchString(name) }

// ToolName returns the name a model sees for the tool named tool by the
// server named server: "SERVER_TOOL", every character that a model's tool
// name may not hold (anything but letters, digits, '_' and '-') replaced
// by '_'. A name longer than [MaxToolName] keeps its first 55 characters
// and ends in '_' and 8 hex digits of its SHA-256, so that long names
// stay apart. Two tools whose names differ only in replaced characters
// get one name: [Start] refuses such a server.
func ToolName(server, tool string) string {
	var b strings.Builder
	b.Grow(len(server) + 1 + len(tool))
	b.WriteString(server)
	b.WriteByte('_')
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			// A byte at a time: a multi-byte character becomes several
			// '_', which keeps names of different lengths apart.
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) <= MaxToolName {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return name[:MaxToolName-9] + "_" + hex.EncodeToString(sum[:4])
}
