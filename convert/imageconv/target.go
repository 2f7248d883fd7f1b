package imageconv

import "github.com/keel-go/keel/convert/internal/limit"

// Target says what the model an image goes to accepts. The converted
// image is a PNG or a JPEG of at most MaxBytes bytes whose sides are at
// most MaxSide pixels and whose area is at most MaxPixels. A zero field
// takes its default, the strictest of the providers keel speaks to
// ([Anthropic]'s).
type Target struct {
	// MaxBytes caps the encoded image, in bytes. Default 3,932,160: see
	// [Anthropic].
	MaxBytes int64
	// MaxSide caps the width and the height, in pixels. Default 8000.
	MaxSide int
	// MaxPixels caps width × height. Default MaxSide × MaxSide.
	MaxPixels int64
	// Accepts lists the media types the model takes as they are, such as
	// "image/png". An image of one of them that is within the other
	// limits, still, and upright is passed through unchanged. Default
	// image/png and image/jpeg. Converted images are always PNG or JPEG.
	Accepts []string
}

// Defaults of [Target].
const (
	DefaultMaxBytes = 5 << 20 * 3 / 4
	DefaultMaxSide  = 8000
)

// Anthropic is the Messages API's limit for an image sent inline: its
// base64 text may be 5 MiB long, so the image 3.75 MiB; 8000 pixels a
// side; PNG, JPEG, GIF and WebP. (Requests with more than 20 images allow
// 2000 pixels a side: pass a smaller MaxSide for those.)
func Anthropic() Target {
	return Target{MaxBytes: DefaultMaxBytes, MaxSide: 8000, Accepts: []string{"image/png", "image/jpeg", "image/gif", "image/webp"}}
}

// OpenAI is the Chat Completions and Responses APIs' limit for an image:
// 20 MB; PNG, JPEG, WebP and still GIF. The models see at most 2048
// pixels a side (larger images are scaled down by the service), so
// sending more only costs bandwidth.
func OpenAI() Target {
	return Target{MaxBytes: 20_000_000, MaxSide: 2048, Accepts: []string{"image/png", "image/jpeg", "image/gif", "image/webp"}}
}

// Gemini is the Gemini API's limit for an image sent inline, which
// Vertex AI documents as 7 MB a file; PNG, JPEG, WebP, HEIC and HEIF.
func Gemini() Target {
	return Target{MaxBytes: 7_000_000, MaxSide: 8000, Accepts: []string{"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}}
}

// withDefaults returns t with every zero field set to its default.
func (t Target) withDefaults() Target {
	limit.Default(&t.MaxBytes, DefaultMaxBytes)
	limit.Default(&t.MaxSide, DefaultMaxSide)
	limit.Default(&t.MaxPixels, int64(t.MaxSide)*int64(t.MaxSide))
	if len(t.Accepts) == 0 {
		t.Accepts = []string{"image/png", "image/jpeg"}
	}
	return t
}
