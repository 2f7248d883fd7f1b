package stored

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/keel-go/keel"
)

// queued is a message kept whole, its files inline: the form of a queued
// turn's message, which belongs to no thread yet and so shares no blob.
type queued struct {
	ID        string            `json:"id,omitempty"`
	Role      keel.Role         `json:"role"`
	CreatedAt time.Time         `json:"createdAt"`
	Parts     json.RawMessage   `json:"parts"`
	Metadata  json.RawMessage   `json:"metadata"`
	Blobs     map[string][]byte `json:"blobs,omitempty"`
}

// EncodeQueued checks m as [EncodeMessage] does and returns it as one
// JSON value, its files' bytes included.
func EncodeQueued(m keel.Message) ([]byte, error) {
	enc, blobs, err := EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	q := queued{ID: enc.ID, Role: enc.Role, CreatedAt: Time(m.CreatedAt), Parts: enc.Parts, Metadata: enc.Metadata}
	if len(blobs) > 0 {
		q.Blobs = make(map[string][]byte, len(blobs))
		for _, b := range blobs {
			q.Blobs[b.Digest] = b.Data
		}
	}
	return json.Marshal(q)
}

// DecodeQueued returns the message [EncodeQueued] encoded; a value that
// does not decode, or whose files do not match their digests, is an error
// wrapping [ErrCorrupt].
func DecodeQueued(b []byte) (keel.Message, error) {
	var q queued
	if err := json.Unmarshal(b, &q); err != nil {
		return keel.Message{}, fmt.Errorf("%w: queued message: %v", ErrCorrupt, err)
	}
	m, err := Decode(Message{ID: q.ID, Role: q.Role, CreatedAt: q.CreatedAt, Parts: q.Parts, Metadata: q.Metadata},
		func(digest string) ([]byte, error) {
			data, ok := q.Blobs[digest]
			if !ok {
				return nil, fmt.Errorf("%w: queued message: no file %s", ErrCorrupt, digest)
			}
			return data, VerifyBlob(digest, data)
		})
	if err != nil {
		return keel.Message{}, err
	}
	return m, nil
}
