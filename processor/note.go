package processor

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/keel-go/keel/internal/cleantext"
)

// maxDisplayName caps a display name, in characters: a name is shown to
// the model and to people, never used as a path.
const maxDisplayName = 200

// unnamedFile is the display name of a file whose name and media type are
// both missing or made only of control characters.
const unnamedFile = "unnamed file"

// displayName returns the name under which a file is shown in notes,
// placeholders, recoveries and errors: the file name, else the media type
// as sent, else "file". ANSI escape sequences and control characters
// (U+0000–U+001F, U+007F–U+009F) are removed, since the name comes from
// the sender and is printed to models, logs and terminals; invalid UTF-8
// becomes U+FFFD. The result is cut to 200 characters; an empty result is
// "unnamed file".
func displayName(filename, mediaType string) string {
	return displayOf(cmp.Or(filename, mediaType, "file"))
}

// cleanName strips escape sequences and control characters from name and
// cuts it to maxDisplayName characters; "" stays "".
func cleanName(name string) string { return cleantext.Line(name, maxDisplayName) }

// The notes below stand in a prompt for a file taken out of it; each is
// one text part, lines joined by "\n". Names in them are display names,
// cleaned once more so that no caller can break a note's lines.

// uploadNote stands for a file now in the sandbox:
//
//	[File uploaded to the sandbox]
//	path: /home/user/uploads/thread-1/0b2f….xlsx
//	name: leads.xlsx
//	type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
//	size: 48213 bytes
//
// type is the normalised media type, size the decoded byte count.
func uploadNote(path, name, mediaType string, size int64) string {
	return "[File uploaded to the sandbox]\npath: " + path + "\nname: " + displayOf(name) + "\ntype: " + mediaType +
		"\nsize: " + strconv.FormatInt(size, 10) + " bytes"
}

// notUploadedNote stands for a file that could not be put in the sandbox:
//
//	[File not uploaded]
//	name: NAME
//	reason: REASON
//
// reason is one of the sentences below.
func notUploadedNote(name, reason string) string {
	return "[File not uploaded]\nname: " + displayOf(name) + "\nreason: " + reason
}

// placeholder stands for a file the model cannot read and the sandbox
// did not take: "[Attachment unavailable: NAME]".
func placeholder(name string) string {
	return "[Attachment unavailable: " + displayOf(name) + "]"
}

// Reasons of a "[File not uploaded]" note. They are sentences for people
// and models, hence their capitals and full stops. "Unnamed" means the
// sender gave no file name: such a file's note shows its media type on
// the name line, but its reason says "An unnamed file", so that a media
// type is never mistaken for a file name:
//
//	[File not uploaded]
//	name: application/zip
//	reason: An unnamed file is 10485761 bytes, over the 10485760 byte limit.

// tooLargeReason: `File "NAME" is SIZE bytes, over the LIMIT byte limit.`
func tooLargeReason(filename string, size, limit int64) string {
	return fmt.Sprintf("%s is %d bytes, over the %d byte limit.", reasonSubject(filename), size, limit)
}

// undecodableReason: `File "NAME" has inline data that cannot be decoded.`
func undecodableReason(filename string) string {
	return reasonSubject(filename) + " has inline data that cannot be decoded."
}

// The reasons of [FileUpload] for a history file it could not upload.
const (
	noSandboxReason    = "No sandbox is available to this run."
	cannotWriteReason  = "The sandbox cannot store files."
	uploadFailedReason = "Uploading it to the sandbox failed."
)

// reasonSubject is `File "NAME"` with the cleaned file name, or "An
// unnamed file" when there is none (or only control characters). The
// media type is never used here: `File "text/csv" is ...` would read as a
// file called text/csv.
func reasonSubject(filename string) string {
	if n := cleanName(filename); n != "" {
		return `File "` + n + `"`
	}
	return "An unnamed file"
}

// displayOf cleans a name that is meant to be a display name already. It
// is also the name FileUpload gives a file in its notes and errors: unlike
// displayName, it never shows the media type for a missing name.
func displayOf(name string) string {
	if clean := cleanName(name); clean != "" {
		return clean
	}
	return unnamedFile
}
