package processor

import (
	"cmp"
	"slices"

	"github.com/keel-go/keel"
)

// overLimit returns the digests of the files of sent (user and tool
// messages, inline data only) that a refusal for a size or page limit is
// blamed on:
//
//   - when the answer points at a type (Anthropic's "image exceeds 5 MB
//     maximum" at an image/png part, its 100-page limit at a PDF), the
//     files of that type over the limit, else the largest of them; for
//     a page limit, every file of the type, since pages are not counted
//     here;
//   - otherwise the limit is the request's (Gemini's "Request payload
//     size exceeds the limit: 20971520 bytes."): the largest files, until
//     what is left, as base64, fits; the largest one when no limit is
//     stated.
func overLimit(run *Run, sent []keel.Message, e *keel.APICallError) []string {
	type file struct {
		sum  string
		size int64
	}
	var files []file
	t := keel.NormalizeMediaType(e.MediaType)
	for f := range filesOf(sent, carriesUserFiles) {
		if !f.IsInline() || t != "" && keel.NormalizeMediaType(f.MediaType) != t {
			continue
		}
		sum, data, err := run.fileDigest(f)
		if err != nil || slices.ContainsFunc(files, func(x file) bool { return x.sum == sum }) {
			continue
		}
		files = append(files, file{sum, int64(len(data))})
	}
	if len(files) == 0 {
		return nil
	}
	slices.SortStableFunc(files, func(a, b file) int { return cmp.Compare(b.size, a.size) })
	var out []string
	switch {
	case e.Fault == keel.FaultFilePages:
		for _, f := range files {
			out = append(out, f.sum)
		}
	case t != "":
		for _, f := range files {
			if e.Limit > 0 && f.size > e.Limit {
				out = append(out, f.sum)
			}
		}
		if len(out) == 0 {
			out = append(out, files[0].sum)
		}
	default:
		var total int64
		for _, f := range files {
			total += base64Size(f.size)
		}
		for _, f := range files {
			out = append(out, f.sum)
			total -= base64Size(f.size)
			if e.Limit <= 0 || total <= e.Limit {
				break
			}
		}
	}
	return out
}

// base64Size is the size of n bytes as standard base64.
func base64Size(n int64) int64 { return (n + 2) / 3 * 4 }
