package config

import (
	"cmp"
	"fmt"
	"mime"
	"regexp"
	"slices"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// FileUpload turns on, for one agent, the file-upload processor: the
// files of the user's messages it chooses are put into the agent's
// sandbox before the model sees them, and the model reads a note with
// each one's path instead, followed by the file's text when a converter
// knows it and files.convert is on (the default). Files given by link or provider file ID are
// never chosen: they stay in the prompt. "fileUpload: {}" chooses every
// file.
type FileUpload struct {
	// MediaTypes choose files by media type: "text/csv", or "image/*" for
	// every image, or "*/*".
	MediaTypes []string `yaml:"mediaTypes"`
	// Extensions choose files by the extension of their name, such as
	// xlsx or .csv (letters and digits, any case). A file is chosen when
	// its media type or its extension is listed; with neither list, every
	// file is.
	Extensions []string `yaml:"extensions"`
	// MaxSize is the largest file chosen, in decoded bytes, such as 5MiB;
	// 0 means 10 MiB, which is also the most it may be. A chosen file over
	// it stops the turn with an error saying so, and nothing is stored.
	MaxSize ByteSize `yaml:"maxSize"`
}

var extensionRE = regexp.MustCompile(`^[a-z0-9]{1,16}$`)

// validate reports each mistake of u to add, by the field below
// fileUpload (such as "mediaTypes[1]") and its path for lineOf.
func (u *FileUpload) validate(add func(field string, path []any, format string, args ...any)) {
	for i, mt := range u.MediaTypes {
		if !validMediaTypePattern(mt) {
			add(fmt.Sprintf("mediaTypes[%d]", i), []any{"mediaTypes", i}, "%q: write a media type such as text/csv, image/* or */*", mt)
		}
	}
	for i, ext := range u.Extensions {
		if !extensionRE.MatchString(normalExtension(ext)) {
			add(fmt.Sprintf("extensions[%d]", i), []any{"extensions", i}, "%q: write an extension such as xlsx or .csv (1 to 16 letters and digits)", ext)
		}
	}
	if u.MaxSize < 0 || u.MaxSize > workspace.MaxUploadSize {
		add("maxSize", []any{"maxSize"}, "%d bytes: write a size up to 10MiB (the most an upload may be), or leave it out for 10MiB", int64(u.MaxSize))
	}
}

// validMediaTypePattern accepts "type/subtype", "type/*" and "*/*".
func validMediaTypePattern(s string) bool {
	if s == "*/*" {
		return true
	}
	if strings.HasSuffix(s, "/*") {
		s = strings.TrimSuffix(s, "*") + "x"
	}
	t, params, err := mime.ParseMediaType(s)
	return err == nil && len(params) == 0 && strings.Contains(t, "/")
}

func normalExtension(ext string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(ext), "."))
}

// processor returns the file-upload processor that puts the files u
// chooses into ws, and gives the model their text after each note when
// converters is not nil (files.convert, on by default).
func (u *FileUpload) processor(ws *workspace.Workspace, converters processor.FileConverter) (*processor.FileUpload, error) {
	types := slices.Clone(u.MediaTypes)
	exts := make(map[string]bool, len(u.Extensions))
	for _, e := range u.Extensions {
		exts[normalExtension(e)] = true
	}
	every := len(types) == 0 && len(exts) == 0
	limit := cmp.Or(int64(u.MaxSize), processor.DefaultMaxFileSize)
	return processor.NewFileUpload(processor.FileUploadOptions{
		Workspace: ws,
		Filter: func(fi processor.FileInfo) (bool, error) {
			ofType := func(class string) bool { return keel.MatchMediaClass(class, fi.MediaType) }
			return every || exts[fi.Extension] || slices.ContainsFunc(types, ofType), nil
		},
		MaxSize:    func(processor.FileInfo) int64 { return limit },
		Converters: converters,
	})
}
