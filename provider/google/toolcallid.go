package google

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
)

// signatureCacheSize bounds how many thought signatures a model keeps.
const signatureCacheSize = 4096

// SkipThoughtSignature is the thought signature sent with a function call
// whose real signature is unknown (a call from another model, or from
// before a restart). Gemini 3 rejects a function call in the history
// without a signature; this value, which Gemini's documentation gives for
// histories it did not produce, asks it to skip the check.
const SkipThoughtSignature = "skip_thought_signature_validator"

// signatureCache keeps the thought signatures Gemini attached to its
// function calls, by tool call ID, so that they go back with the calls in
// later requests. keel's tool call parts have no room for them, so they
// live here, for as long as the model does and up to a bound.
type signatureCache struct {
	mu    sync.Mutex
	max   int
	sigs  map[string][]byte
	order []string
}

func newSignatureCache(max int) *signatureCache {
	return &signatureCache{max: max, sigs: make(map[string][]byte)}
}

func (c *signatureCache) remember(id string, sig []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.sigs[id]; !ok {
		c.order = append(c.order, id)
	}
	c.sigs[id] = sig
	for len(c.order) > c.max {
		delete(c.sigs, c.order[0])
		c.order = c.order[1:]
	}
}

// signatureFor returns the signature Gemini gave the call id, or
// [SkipThoughtSignature].
func (c *signatureCache) signatureFor(id string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sig, ok := c.sigs[id]; ok {
		return sig
	}
	return []byte(SkipThoughtSignature)
}

// newCallID makes the ID of a function call Gemini gave none: the
// response's ID and the call's position, so a response's calls get the
// same IDs however it is read (whole or streamed). Without a response ID
// a random one takes its place.
func newCallID(responseID string, index int) string {
	if responseID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		responseID = hex.EncodeToString(b[:])
	}
	return "call_" + responseID + "_" + strconv.Itoa(index)
}
