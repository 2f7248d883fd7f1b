package processor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/convert/imageconv"
	"github.com/keel-go/keel/memory"
)

// ImageDescriber writes what an image shows and the text in it, for a
// model that sees no images ([UnsupportedFileOptions].DescribeWith). A
// *ModelDescriber is one. Implementations are safe for concurrent use.
type ImageDescriber interface {
	// DescribeImage returns the description of the image, whose SHA-256
	// is sum (lower-case hex), and the model that wrote it
	// ("google/gemini-2.5-flash").
	DescribeImage(ctx context.Context, img imageconv.Input, sum string) (text, by string, err error)
}

// DescribePrompt is what a [ModelDescriber] asks, before the image.
const DescribePrompt = "Describe this image for someone who cannot see it, in a few sentences: what it shows, " +
	"and any charts, tables or diagrams in it. Then write out all the text it contains, as written. " +
	"Answer with the description and the text only."

// ModelDescriber describes images with a vision model, once per image:
// each description is kept by the model and the image's SHA-256, in its
// Store when it has one (so that no process sharing the store asks
// again) and in the value for the process's life. Concurrent calls for
// one image wait for the one call made.
type ModelDescriber struct {
	// Model is the vision model that describes.
	Model keel.Model
	// Store keeps descriptions; nil keeps them for the process only.
	Store memory.FileDescriptions
	// Images re-encodes an image the model does not take as one it does
	// (a HEIC for a Gemini model takes none); nil sends it as it is.
	Images ImageConverter
	// MaxOutputTokens caps each description; 0 means 1,024.
	MaxOutputTokens int

	mu       sync.Mutex
	known    map[string]string
	inflight map[string]*describeCall
}

type describeCall struct {
	done chan struct{}
	text string
	err  error
}

// ModelID is the describing model as descriptions are kept by:
// "provider/name".
func (d *ModelDescriber) ModelID() string { return d.Model.Provider() + "/" + d.Model.Name() }

// DescribeImage implements [ImageDescriber].
func (d *ModelDescriber) DescribeImage(ctx context.Context, img imageconv.Input, sum string) (string, string, error) {
	by := d.ModelID()
	d.mu.Lock()
	if t, ok := d.known[sum]; ok {
		d.mu.Unlock()
		return t, by, nil
	}
	if c, ok := d.inflight[sum]; ok {
		d.mu.Unlock()
		select {
		case <-c.done:
			return c.text, by, c.err
		case <-ctx.Done():
			return "", by, ctx.Err()
		}
	}
	c := &describeCall{done: make(chan struct{})}
	setIn(&d.inflight, sum, c)
	d.mu.Unlock()

	c.text, c.err = d.describe(ctx, img, sum, by)
	d.mu.Lock()
	delete(d.inflight, sum)
	if c.err == nil {
		setIn(&d.known, sum, c.text)
	}
	d.mu.Unlock()
	close(c.done)
	return c.text, by, c.err
}

// describe finds the stored description, or asks the model and stores
// its answer.
func (d *ModelDescriber) describe(ctx context.Context, img imageconv.Input, sum, by string) (string, error) {
	if d.Store != nil {
		got, err := d.Store.FileDescription(ctx, by, sum)
		if err == nil {
			return got.Text, nil
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return "", fmt.Errorf("describe image: %w", err)
		}
	}
	part := keel.FilePart{Data: img.Data, MediaType: img.MediaType, Filename: img.Name}
	if d.Images != nil {
		conv, err := d.Images.Convert(ctx, img, imageTarget(d.Model))
		if err != nil {
			return "", fmt.Errorf("describe image: %w", err)
		}
		part.Data, part.MediaType = conv.Data, conv.MediaType
	}
	resp, err := d.Model.Generate(ctx, &keel.Request{
		Messages:        []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: DescribePrompt}, part}}},
		MaxOutputTokens: cmp.Or(d.MaxOutputTokens, 1024),
	})
	if err != nil {
		return "", fmt.Errorf("describe image with %s: %w", by, err)
	}
	text := strings.TrimSpace(resp.Text())
	if text == "" {
		return "", fmt.Errorf("describe image with %s: the model answered nothing", by)
	}
	if len(text) > memory.MaxFileDescription {
		text = strings.ToValidUTF8(text[:memory.MaxFileDescription], "")
	}
	if d.Store != nil {
		// The first description stored wins: a server that raced this
		// one may have written its own, which is the one kept and
		// shown from now on.
		if err := d.Store.RecordFileDescription(ctx, memory.FileDescription{Model: by, SHA256: sum, Text: text}); err != nil {
			return "", fmt.Errorf("describe image: %w", err)
		}
		if got, err := d.Store.FileDescription(ctx, by, sum); err == nil {
			text = got.Text
		}
	}
	return text, nil
}
