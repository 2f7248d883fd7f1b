package processor

import "github.com/keel-go/keel"

// keel's rule beyond the reference framework's, by which any error answer
// counts as a refusal of the request's files unless its status asks to
// try again later: an answer no file can cause is never blamed on one.
// The handler leaves it alone, nothing is uploaded or retried, and the
// error surfaces.

// notAFile reports an answer no file can cause: a bad key (401), no
// access (403), an answer its adapter typed so ([keel.FaultNotFile]: a
// bad key in a 400, a quota), or an unknown model or route (404) unless
// the answer says it is about a kind of input (OpenRouter's 404 "No
// endpoints found that support image input", which its adapter types
// [keel.FaultFileType]). Taking files out would not help, and the caller
// must see the error itself.
func notAFile(e *keel.APICallError) bool {
	switch fault := faultOf(e); {
	case fault == keel.FaultNotFile, e.StatusCode == 401, e.StatusCode == 403:
		return true
	case e.StatusCode == 404:
		return fault != keel.FaultFileType
	}
	return false
}
