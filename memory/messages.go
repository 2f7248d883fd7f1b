package memory

import (
	"fmt"

	"github.com/keel-go/keel"
)

// EncodeMessages prepares msgs for [Store.SaveMessages]: a [NewID] for a
// message without one, times as [StoredTime], each message encoded with
// [EncodeMessage], and the blobs of them all, one per digest. A zero
// CreatedAt stays zero, for the store to set (to now, or to the stored
// time of the message it replaces). Two messages with one ID give an error
// wrapping [ErrInvalid], as does any message [EncodeMessage] refuses;
// nothing is changed in msgs.
func EncodeMessages(msgs []keel.Message) ([]EncodedMessage, []Blob, error) {
	enc := make([]EncodedMessage, 0, len(msgs))
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
			m.CreatedAt = StoredTime(m.CreatedAt)
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

// Stored returns msgs as a store saved them: each a clone with the ID and
// CreatedAt of its encoded form. The parts still hold the caller's values,
// never a store's state.
func Stored(msgs []keel.Message, enc []EncodedMessage) []keel.Message {
	out := make([]keel.Message, len(msgs))
	for i, m := range msgs {
		m = m.Clone()
		m.ID, m.CreatedAt = enc[i].ID, enc[i].CreatedAt
		out[i] = m
	}
	return out
}
