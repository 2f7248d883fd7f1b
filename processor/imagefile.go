package processor

import (
	"context"
	"errors"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/convert/imageconv"
	"github.com/keel-go/keel/internal/cleantext"
)

// This file is keel's handling of a refused image, beyond the reference
// framework's note: an image in a format the model does not take goes to
// it again as a PNG or JPEG it does take; an image refused by a model
// that reads no images is described in words.

// ImageConverter re-encodes and describes images, for the unsupported-file
// handler ([UnsupportedFileOptions].Images). A *imageconv.Converter is
// one (imageconv.Default()). Implementations are safe for concurrent use.
type ImageConverter interface {
	Convert(ctx context.Context, in imageconv.Input, t imageconv.Target) (*imageconv.Image, error)
	Describe(ctx context.Context, in imageconv.Input) (*imageconv.Info, error)
}

// imageTarget is what the model's provider takes as an image, inline.
func imageTarget(m keel.Model) imageconv.Target {
	if m == nil {
		return imageconv.Target{}
	}
	switch m.Provider() {
	case "anthropic":
		return imageconv.Anthropic()
	case "openai":
		return imageconv.OpenAI()
	case "google":
		return imageconv.Gemini()
	}
	// An OpenAI-compatible server: PNG and JPEG, within the strictest
	// limits.
	return imageconv.Target{}
}

// imageResult is what the run made of a refused image: the image the
// model takes instead, or, when it takes no image of that kind, what
// can be said of it. Both nil when the file is no image keel reads.
type imageResult struct {
	image *imageconv.Image
	info  *imageconv.Info
	// description and by are a vision model's words of an image the
	// model cannot see, and that model ([UnsupportedFileOptions].DescribeWith).
	description, by string
}

// withImage makes rep, for a refused image pf (inline, decoded), say
// what the image converter made of it: the image as the model can read it,
// in place of the placeholder or after the sandbox's note, or what can be
// said of it. It reports whether it did.
func (h *UnsupportedFileHandler) withImage(ctx context.Context, req *LLMRequest, st *unsupportedFileState, pf *promptFile, rep *replacement) bool {
	if h.images == nil || !strings.HasPrefix(keel.NormalizeMediaType(pf.part.MediaType), "image/") {
		return false
	}
	img := h.imageOnce(ctx, req, st, pf)
	if img.image == nil && img.info == nil {
		return false
	}
	if rep.file.Outcome == OutcomePlaceholder && img.image != nil {
		// The image stands for the file.
		rep.texts = nil
	}
	rep.texts = append(rep.texts, img.label(rep.file.Name))
	if img.image != nil {
		rep.part = &keel.FilePart{Data: img.image.Data, MediaType: img.image.MediaType, Filename: pf.part.Filename}
	}
	rep.file.Outcome, rep.file.Conversion = OutcomeConverted, img.report()
	return true
}

// imageOnce re-encodes or describes the refused image pf (inline,
// decoded) once per run for model: a PNG or JPEG within the model's
// limits when the model takes that type, else a description.
func (h *UnsupportedFileHandler) imageOnce(ctx context.Context, req *LLMRequest, st *unsupportedFileState, pf *promptFile) imageResult {
	sum := pf.sum
	if r, ok := st.images[sum]; ok {
		return r
	}
	in := imageconv.Input{Name: pf.filename, MediaType: pf.part.MediaType, Data: pf.data}
	var r imageResult
	img, err := h.images.Convert(ctx, in, imageTarget(req.Model))
	switch {
	case err == nil && !st.refusesType(img.MediaType, req):
		r.image = img
	case err == nil, errors.Is(err, imageconv.ErrLimit):
		// The model takes no image of that type (it reads no images), or
		// this one is too large to decode: what its header says.
		r.info, err = h.images.Describe(ctx, in)
		if err == nil && h.describer != nil {
			var derr error
			if r.description, r.by, derr = h.describer.DescribeImage(ctx, in, sum); derr != nil && ctx.Err() == nil {
				warnRefusedFile(req.Run, "image the model cannot see could not be described; sent with what its file says", pf.name, derr)
			}
		}
	}
	switch {
	case err == nil, errors.Is(err, imageconv.ErrUnsupported):
	case ctx.Err() != nil:
		return imageResult{}
	default:
		warnRefusedFile(req.Run, "image the model refused could not be converted or described; sent without it", pf.name, err)
	}
	setIn(&st.images, sum, r)
	return r
}

// refusesType reports whether a file of mediaType would itself be taken
// out of this call's prompt: an image converted to a type the model
// refuses too is no use to it.
func (st *unsupportedFileState) refusesType(mediaType string, req *LLMRequest) bool {
	_, refused := st.selects(keel.FilePart{MediaType: mediaType}, "", st.now)
	return refused
}

// label is the line before the converted image, or the description:
//
//	[Image IMG_0042.HEIC, as the model can read it: HEIC 4032 × 3024 → JPEG 2000 × 1500; turned upright]
//	[Image logo.png, which the model cannot see]
//	Image: PNG, 640 × 480 pixels, RGB with alpha
//	[Described by google/gemini-2.5-flash]
//	A company logo: a blue sail over the word "keel". Text: keel
func (r imageResult) label(name string) string {
	if r.image != nil {
		return "[Image " + displayOf(name) + ", as the model can read it: " + cleantext.Line(r.image.Summary(), maxLabelFacts) + "]"
	}
	s := "[Image " + displayOf(name) + ", which the model cannot see]\n" + strings.TrimRight(r.info.Text(), "\n")
	if r.description != "" {
		s += "\n[Described by " + r.by + "]\n" + r.description
	}
	return s
}

// report describes what was made of the image in a [Recovery].
func (r imageResult) report() *Conversion {
	if r.image != nil {
		as := strings.ToUpper(strings.TrimPrefix(r.image.MediaType, "image/"))
		return &Conversion{Kind: "image", As: as, Description: r.image.Summary()}
	}
	t := r.info.Text()
	if r.description != "" {
		t += "\n" + r.description
	}
	return &Conversion{Kind: "image", As: "description", Description: firstLine(t), Chars: len([]rune(t))}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
