package mcpserver

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/keel-go/keel"
)

// inputFile is one file of an ask: its content in base64 or as a data:
// URL.
type inputFile struct {
	Name      string `json:"name"`
	MediaType string `json:"mediaType"`
	Data      string `json:"data"`
}

// decodeFiles turns an ask's files into file parts, refusing what keel
// run would refuse: too many, too large, undecodable.
func (s *Server) decodeFiles(in []inputFile) ([]keel.FilePart, error) {
	if len(in) > s.opts.MaxFiles && s.opts.MaxFiles > 0 {
		return nil, fmt.Errorf("%d files: an ask takes at most %d", len(in), s.opts.MaxFiles)
	}
	out := make([]keel.FilePart, 0, len(in))
	for i, f := range in {
		label := fmt.Sprintf("files[%d]", i)
		if f.Name != "" {
			label = fmt.Sprintf("files[%d] (%s)", i, f.Name)
		}
		// Base64 is 4 bytes for 3: a string that long cannot decode to
		// less than the limit, and is refused before it is decoded.
		if int64(len(f.Data)) > (s.opts.MaxFileBytes/3+1)*4+int64(len("data:;base64,"))+int64(len(f.MediaType))+256 {
			return nil, fmt.Errorf("%s is over the %d byte limit", label, s.opts.MaxFileBytes)
		}
		var (
			data      []byte
			mediaType = f.MediaType
			err       error
		)
		if strings.HasPrefix(strings.ToLower(f.Data), "data:") {
			var urlType string
			urlType, data, err = keel.ParseDataURL(f.Data)
			mediaType = cmp.Or(mediaType, urlType)
		} else {
			data, err = keel.DecodeBase64(f.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: data is neither base64 nor a data: URL that decodes: %v", label, err)
		}
		if int64(len(data)) > s.opts.MaxFileBytes {
			return nil, fmt.Errorf("%s is %d bytes, over the %d byte limit", label, len(data), s.opts.MaxFileBytes)
		}
		if mediaType == "" {
			mediaType = keel.MediaTypeOf(f.Name, data)
		}
		if err := keel.CheckMediaType(mediaType); err != nil {
			return nil, fmt.Errorf("%s: mediaType: %v", label, err)
		}
		out = append(out, keel.FilePart{Data: data, MediaType: mediaType, Filename: baseName(f.Name)})
	}
	return out, nil
}

// baseName is the last element of a file's name, so that a name given as
// a path ("../../etc/passwd", "C:\Users\me\a.xlsx") names a file, not
// a place; "" when there is none.
func baseName(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	if name == "." || name == ".." {
		return ""
	}
	return name
}
