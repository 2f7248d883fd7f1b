package stored

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/keel-go/keel"
)

// Message is a message in the form stores keep it: its parts as JSON in
// which every inline file is replaced by the SHA-256 digest of its bytes,
// which are kept apart as a [Blob].
type Message struct {
	ID        string
	Role      keel.Role
	CreatedAt time.Time
	// Parts is the JSON array of the parts.
	Parts []byte
	// Metadata is the JSON of the metadata ("null" when it has none).
	Metadata []byte
	// Digests lists, sorted and without repeats, the blobs Parts refers to.
	Digests []string

	// partDigests holds, when the message was encoded here, the digest of
	// each part's file ("" for a part without a blob), for [AsSaved].
	partDigests []string
}

// Blob is file content, kept once however many messages hold it.
type Blob struct {
	// Digest is the lower-case hex SHA-256 of Data.
	Digest string
	Data   []byte
}

// Digest returns the lower-case hex SHA-256 of data, the address of its
// [Blob].
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// VerifyBlob checks that data has the given digest; an error wraps
// [ErrCorrupt] when it does not, so that damaged storage is reported
// rather than handed out as a file.
func VerifyBlob(digest string, data []byte) error {
	if got := Digest(data); got != digest {
		return fmt.Errorf("%w: blob %s holds %d bytes whose digest is %s", ErrCorrupt, digest, len(data), got)
	}
	return nil
}

// Time returns t as stores keep it: in UTC, to the millisecond.
func Time(t time.Time) time.Time {
	return t.UTC().Truncate(time.Millisecond)
}

// storedPart is one part in stored form. Field names are short because
// they are repeated in every stored message.
type storedPart struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`

	// Blob is the digest of a file's inline bytes. With DataURL set, the
	// part's URL is rebuilt from the blob as a base64 data: URL of that
	// media type; otherwise the bytes are the part's Data.
	Blob      string  `json:"blob,omitempty"`
	Size      int     `json:"size,omitempty"`
	DataURL   *string `json:"dataURL,omitempty"`
	URL       string  `json:"url,omitempty"`
	MediaType string  `json:"mediaType,omitempty"`
	Filename  string  `json:"filename,omitempty"`

	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Input and Output are kept as strings, not embedded JSON, so their
	// bytes come back exactly (embedding would compact them) even when a
	// model produced JSON that does not parse.
	Input   *string `json:"input,omitempty"`
	Output  *string `json:"output,omitempty"`
	IsError bool    `json:"isError,omitempty"`
}

// EncodeMessage checks m and returns its stored form and the blobs of its
// inline files, one per distinct content. The ID and CreatedAt are taken as
// they are: stores assign them first. Bad input (an invalid ID or role, a
// string that is not UTF-8, a file with both bytes and a URL, metadata that
// is not JSON) gives an error wrapping [ErrInvalid].
func EncodeMessage(m keel.Message) (Message, []Blob, error) {
	if m.ID != "" {
		if err := CheckID("message", m.ID); err != nil {
			return Message{}, nil, err
		}
	}
	switch m.Role {
	case keel.RoleSystem, keel.RoleUser, keel.RoleAssistant, keel.RoleTool:
	default:
		return Message{}, nil, fmt.Errorf("%w: message %q has role %q", ErrInvalid, m.ID, Truncate(string(m.Role)))
	}
	var parts []storedPart
	if m.Parts != nil {
		parts = make([]storedPart, 0, len(m.Parts))
	}
	var blobs []Blob
	sums := make([]string, len(m.Parts))
	addBlob := func(data []byte) string {
		d := Digest(data)
		for _, b := range blobs {
			if b.Digest == d {
				return d
			}
		}
		blobs = append(blobs, Blob{Digest: d, Data: data})
		return d
	}
	for i, p := range m.Parts {
		sp, err := encodePart(p, addBlob)
		if err != nil {
			return Message{}, nil, fmt.Errorf("%w: message %q part %d: %s", ErrInvalid, m.ID, i, err)
		}
		sums[i] = sp.Blob
		parts = append(parts, sp)
	}
	partsJSON, err := json.Marshal(parts)
	if err != nil {
		return Message{}, nil, fmt.Errorf("%w: message %q parts: %v", ErrInvalid, m.ID, err)
	}
	meta, err := EncodeMetadata(m.Metadata)
	if err != nil {
		return Message{}, nil, fmt.Errorf("message %q: %w", m.ID, err)
	}
	digests := make([]string, len(blobs))
	for i, b := range blobs {
		digests[i] = b.Digest
	}
	slices.Sort(digests)
	return Message{
		ID:          m.ID,
		Role:        m.Role,
		CreatedAt:   m.CreatedAt,
		Parts:       partsJSON,
		Metadata:    meta,
		Digests:     digests,
		partDigests: sums,
	}, blobs, nil
}

// encodePart returns p's stored form; its error is a bare reason, which
// the caller wraps.
func encodePart(p keel.Part, addBlob func([]byte) string) (storedPart, error) {
	switch p := p.(type) {
	case keel.TextPart:
		if !utf8.ValidString(p.Text) {
			return storedPart{}, fmt.Errorf("text is not UTF-8")
		}
		return storedPart{Type: "text", Text: p.Text}, nil
	case keel.FilePart:
		for _, s := range [...]string{p.URL, p.MediaType, p.Filename} {
			if !utf8.ValidString(s) {
				return storedPart{}, fmt.Errorf("file name, media type or URL is not UTF-8")
			}
		}
		sp := storedPart{Type: "file", MediaType: p.MediaType, Filename: p.Filename}
		switch {
		case p.Data != nil && p.URL != "":
			return storedPart{}, fmt.Errorf("file has both data and a URL")
		case p.Data != nil:
			sp.Blob, sp.Size = addBlob(p.Data), len(p.Data)
		default:
			// A data: URL in the form keel itself writes is kept as a blob,
			// so that its bytes are stored once like any other file's and
			// the URL comes back exactly; any other URL is kept as it is.
			if mt, data, ok := canonicalDataURL(p.URL); ok {
				sp.Blob, sp.Size, sp.DataURL = addBlob(data), len(data), &mt
			} else {
				sp.URL = p.URL
			}
		}
		return sp, nil
	case keel.ToolCallPart:
		if !utf8.ValidString(p.ID) || !utf8.ValidString(p.Name) || !utf8.Valid(p.Input) {
			return storedPart{}, fmt.Errorf("tool call id, name or input is not UTF-8")
		}
		return storedPart{Type: "tool-call", ID: p.ID, Name: p.Name, Input: rawString(p.Input)}, nil
	case keel.ToolResultPart:
		if !utf8.ValidString(p.CallID) || !utf8.ValidString(p.Name) || !utf8.Valid(p.Output) {
			return storedPart{}, fmt.Errorf("tool result call id, name or output is not UTF-8")
		}
		return storedPart{Type: "tool-result", ID: p.CallID, Name: p.Name, Output: rawString(p.Output), IsError: p.IsError}, nil
	default:
		return storedPart{}, fmt.Errorf("unsupported part type %T", p)
	}
}

// canonicalDataURL decodes a base64 data: URL that [keel.DataURL] would
// write back byte for byte.
func canonicalDataURL(u string) (mediaType string, data []byte, ok bool) {
	if len(u) < len("data:") || u[:len("data:")] != "data:" {
		return "", nil, false
	}
	mt, data, err := keel.ParseDataURL(u)
	if err != nil || keel.DataURL(mt, data) != u {
		return "", nil, false
	}
	return mt, data, true
}

func rawString(b json.RawMessage) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// Decode rebuilds a message from its stored form; blob returns the bytes
// of a digest (stores verify them with [VerifyBlob] and read each blob once
// per load, whatever the number of parts that hold it). Parts holding the
// same blob share its bytes, which a [keel.FilePart] never modifies, and
// carry its digest in [keel.FilePart.SHA256]. Stored data that does not
// decode gives an error wrapping [ErrCorrupt].
func Decode(e Message, blob func(digest string) ([]byte, error)) (keel.Message, error) {
	m := keel.Message{ID: e.ID, Role: e.Role, CreatedAt: e.CreatedAt}
	var parts []storedPart
	if err := json.Unmarshal(e.Parts, &parts); err != nil {
		return keel.Message{}, fmt.Errorf("%w: message %q parts: %v", ErrCorrupt, e.ID, err)
	}
	if parts != nil {
		m.Parts = make([]keel.Part, 0, len(parts))
	}
	for i, sp := range parts {
		p, err := decodePart(sp, blob)
		if err != nil {
			return keel.Message{}, fmt.Errorf("message %q part %d: %w", e.ID, i, err)
		}
		m.Parts = append(m.Parts, p)
	}
	meta, err := DecodeMetadata(e.Metadata)
	if err != nil {
		return keel.Message{}, fmt.Errorf("message %q: %w", e.ID, err)
	}
	m.Metadata = meta
	return m, nil
}

func decodePart(sp storedPart, blob func(string) ([]byte, error)) (keel.Part, error) {
	switch sp.Type {
	case "text":
		return keel.TextPart{Text: sp.Text}, nil
	case "file":
		f := keel.FilePart{URL: sp.URL, MediaType: sp.MediaType, Filename: sp.Filename}
		if sp.Blob == "" {
			return f, nil
		}
		f.SHA256 = sp.Blob
		data, err := blob(sp.Blob)
		if err != nil {
			return nil, err
		}
		if len(data) != sp.Size {
			return nil, fmt.Errorf("%w: blob %s has %d bytes; want %d", ErrCorrupt, sp.Blob, len(data), sp.Size)
		}
		if sp.DataURL != nil {
			f.URL = keel.DataURL(*sp.DataURL, data)
		} else if data == nil {
			f.Data = []byte{}
		} else {
			f.Data = data
		}
		return f, nil
	case "tool-call":
		return keel.ToolCallPart{ID: sp.ID, Name: sp.Name, Input: rawBytes(sp.Input)}, nil
	case "tool-result":
		return keel.ToolResultPart{CallID: sp.ID, Name: sp.Name, Output: rawBytes(sp.Output), IsError: sp.IsError}, nil
	default:
		return nil, fmt.Errorf("%w: unknown part type %q", ErrCorrupt, sp.Type)
	}
}

func rawBytes(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

// EncodeMetadata returns the JSON of metadata ("null" for a nil map), or an
// error wrapping [ErrInvalid] when it cannot be encoded.
func EncodeMetadata(meta map[string]any) ([]byte, error) {
	// encoding/json would quietly turn bad UTF-8 into U+FFFD: the metadata
	// would not come back as it was given.
	if !validStrings(meta) {
		return nil, fmt.Errorf("%w: metadata holds a string that is not UTF-8", ErrInvalid)
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("%w: metadata is not JSON: %v", ErrInvalid, err)
	}
	return b, nil
}

// validStrings reports whether every string in v, a map or slice of the
// kinds JSON decodes to, is UTF-8. Values of other types are left to
// encoding/json.
func validStrings(v any) bool {
	switch v := v.(type) {
	case string:
		return utf8.ValidString(v)
	case map[string]any:
		for k, e := range v {
			if !utf8.ValidString(k) || !validStrings(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !validStrings(e) {
				return false
			}
		}
	case []string:
		for _, e := range v {
			if !utf8.ValidString(e) {
				return false
			}
		}
	case map[string]string:
		for k, e := range v {
			if !utf8.ValidString(k) || !utf8.ValidString(e) {
				return false
			}
		}
	}
	return true
}

// DecodeMetadata decodes what [EncodeMetadata] wrote. Numbers come back as
// float64, as encoding/json gives them: metadata is JSON, not Go values.
func DecodeMetadata(b []byte) (map[string]any, error) {
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil, nil
	}
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrCorrupt, err)
	}
	return meta, nil
}
