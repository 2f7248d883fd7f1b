package stored

import (
	"fmt"

	"github.com/keel-go/keel"
)

// Encode prepares msgs for saving: a [NewID] for a message without one,
// times as [Time], each message encoded with [EncodeMessage], and the
// blobs of them all, one per digest. A zero
// CreatedAt stays zero, for the store to set (to now, or to the stored
// time of the message it replaces). Two messages with one ID give an error
// wrapping [ErrInvalid], as does any message [EncodeMessage] refuses;
// nothing is changed in msgs.
func Encode(msgs []keel.Message) ([]Message, []Blob, error) {
	enc := make([]Message, 0, len(msgs))
	seen := make(map[string]bool, len(msgs))
	var blobs []Blob
	known := make(map[string]bool)
	for _, m := range msgs {
		if m.ID == "" {
			m.ID = NewID()
		}
		if seen[m.ID] {
			return nil, nil, fmt.Errorf("%w: message id %q given twice", ErrInvalid, m.ID)
		}
		seen[m.ID] = true
		if !m.CreatedAt.IsZero() {
			m.CreatedAt = Time(m.CreatedAt)
		}
		e, bs, err := EncodeMessage(m)
		if err != nil {
			return nil, nil, err
		}
		for _, b := range bs {
			if !known[b.Digest] {
				known[b.Digest] = true
				blobs = append(blobs, b)
			}
		}
		enc = append(enc, e)
	}
	return enc, blobs, nil
}

// AsSaved returns msgs as a store saved them, enc being their encoded form
// from [Encode] as completed by saving: each a clone with the ID and
// CreatedAt of its encoded form, and on each file part the SHA256 of the
// blob it was stored as ("" for a file kept by URL, whatever the caller
// gave). The parts still hold the caller's bytes, never a store's state.
func AsSaved(msgs []keel.Message, enc []Message) []keel.Message {
	out := make([]keel.Message, len(msgs))
	for i, m := range msgs {
		m = m.Clone()
		m.ID, m.CreatedAt = enc[i].ID, enc[i].CreatedAt
		for j, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok {
				f.SHA256 = enc[i].partDigests[j]
				m.Parts[j] = f
			}
		}
		out[i] = m
	}
	return out
}
