package processor

import "github.com/keel-go/keel/internal/cleantext"

// NotDownloadedNote stands for a file given by link that was not
// downloaded, so that the model knows a file was sent and why it cannot
// see it:
//
//	[File not downloaded]
//	name: NAME
//	reason: REASON
//
// NAME is the file's display name (its file name, else its media type),
// cleaned of control characters; reason, a sentence, is cleaned too.
func NotDownloadedNote(filename, mediaType, reason string) string {
	return "[File not downloaded]\nname: " + displayName(filename, mediaType) + "\nreason: " + cleantext.Line(reason, 500)
}
