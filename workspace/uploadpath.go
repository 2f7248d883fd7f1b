package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/keel-go/keel"
)

// maxDirLen caps a directory name made by [SafeDir]; thread IDs can be
// arbitrarily long and a path component must stay far below NAME_MAX.
const maxDirLen = 100

// maxExtLen caps an extension taken from a file name.
const maxExtLen = 16

// sharedDir is the upload directory of files that belong to no thread and
// no resource, and of IDs that sanitise to nothing.
const sharedDir = "shared"

// UploadDir returns the directory, under "uploads/", that holds the files
// uploaded for a thread: the thread ID, else the resource ID, else
// "shared", made shell-safe by [SafeDir]. The first non-empty ID is chosen
// before it is made safe, so a thread ID that sanitises to nothing (such
// as "." or "..") gives a directory of its own, never "shared" or the
// resource's.
func UploadDir(threadID, resourceID string) string {
	switch {
	case threadID != "":
		return SafeDir(threadID)
	case resourceID != "":
		return SafeDir(resourceID)
	default:
		return sharedDir
	}
}

// SafeDir turns s into a directory name that is safe in a path and in a
// shell command even unquoted: Unicode NFKD with the accents dropped
// ("Ünïcödé" becomes "Unicode"), every character outside [A-Za-z0-9._-]
// replaced by "_", every run of two or more dots replaced by "_" (so no
// ".." survives), runs of "_" collapsed to one, leading and trailing ".",
// "_" and "-" trimmed, at most 100 characters (the edges are trimmed again
// after the cut). The empty name becomes "shared"; any other name that
// ends up empty (".", "..", "日本語", "   ") becomes "id-" and 16 hex
// digits of its SHA-256, so that it neither lands among the files of no
// thread nor shares a directory with another such name: removing a
// thread's uploads must never remove another's.
func SafeDir(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// An accent split off its letter by NFKD.
		case isSafeDirByte(r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := trimDirEdges(collapseRuns(b.String()))
	if len(out) > maxDirLen {
		// Every byte is ASCII by now, so bytes are characters. Trim again
		// so that the cut cannot leave an edge character behind.
		out = trimDirEdges(out[:maxDirLen])
	}
	switch {
	case out != "":
		return out
	case s == "":
		return sharedDir
	}
	sum := sha256.Sum256([]byte(s))
	return "id-" + hex.EncodeToString(sum[:8])
}

func isSafeDirByte(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '.' || r == '_' || r == '-'
}

// collapseRuns replaces every run of two or more dots with "_", then
// every run of "_" with one.
func collapseRuns(s string) string {
	if !strings.Contains(s, "..") && !strings.Contains(s, "__") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' && i+1 < len(s) && s[i+1] == '.' {
			for i+1 < len(s) && s[i+1] == '.' {
				i++
			}
			c = '_'
		}
		if c == '_' && len(b) > 0 && b[len(b)-1] == '_' {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func trimDirEdges(s string) string { return strings.Trim(s, "._-") }

// Extension returns the extension, without its dot, of an uploaded file's
// path; "" means none.
//
// A named file takes it from its name: the last path segment ("/" or "\"
// separated), the text after its last dot when that dot is neither the
// first nor the last character, lower-cased, with only [a-z0-9] kept, cut
// to 16 characters. A named file without such an extension gets none, even
// when its media type is known: the name is what the sender chose.
//
// An unnamed file takes it from its normalised media type when it is a
// well-known one (json, pdf, xlsx, docx, zip, mp3, wav, gif, jpg, png, svg,
// webp, csv, html, md, txt, mp4), else it gets none.
func Extension(filename, mediaType string) string {
	if filename == "" {
		if ext := keel.ExtensionOf(mediaType); uploadExtensions[ext] {
			return ext
		}
		return ""
	}
	base := filename
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 {
		return ""
	}
	var b strings.Builder
	for _, r := range strings.ToLower(base[dot+1:]) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			if b.Len() == maxExtLen {
				break
			}
		}
	}
	return b.String()
}

// uploadExtensions are the extensions an unnamed file's path may get,
// each from its media type by [keel.ExtensionOf] (aliases included, so
// image/jpg gets jpg as image/jpeg does).
var uploadExtensions = map[string]bool{
	"json": true, "pdf": true, "xlsx": true, "docx": true, "zip": true, "mp3": true, "wav": true, "gif": true, "jpg": true,
	"png": true, "svg": true, "webp": true, "csv": true, "html": true, "md": true, "txt": true, "mp4": true,
}

// relPath returns the upload path of a file, relative to the sandbox's
// working directory.
func relPath(dir, sum, ext string) string {
	p := "uploads/" + dir + "/" + sum
	if ext != "" {
		p += "." + ext
	}
	return p
}
