package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/convert/imageconv"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// Files says what keel does with a file an agent's model refused: with
// Convert on (the default), the model gets the file's text, labelled, at
// its place, after the sandbox's note; off, the note (or a placeholder)
// alone. Given at the top of the file it is every agent's default; an
// agent's own files: overrides it field by field.
type Files struct {
	// Convert turns refused spreadsheets, documents, presentations,
	// archives, e-mail and text into text for the model; nil means on.
	// When soffice is on the PATH, LibreOffice reads what keel's own
	// converters do not (convert.LibreOffice).
	Convert *bool `yaml:"convert"`
	// MaxChars caps the text of one file, in characters; 0 means
	// 100,000. Longer text is cut on a row or paragraph and says how much
	// was left out.
	MaxChars int `yaml:"maxChars"`
	// Fetch says whether and how files given by link are downloaded;
	// nil downloads none. An agent's fetch replaces the file's whole.
	Fetch *Fetch `yaml:"fetch"`
	// BlameReadable, nil or true (the default), lets an error that names
	// no file be blamed on images, PDFs and text too when the request
	// holds no other file: the call is tried once more without them (a
	// text-only model that says so in words keel does not know). false
	// keeps the reference framework's rule, which blames only other
	// files.
	BlameReadable *bool `yaml:"blameReadable"`
	// DescribeWith names a vision model ("google/gemini-2.5-flash") that
	// describes an image refused by a model that reads none: what it
	// shows and the text in it, after what the file itself says. Each
	// image is described once, kept in the store by its SHA-256 so that
	// no keel sharing the database asks again. Empty (the default)
	// describes none. Needs convert on.
	DescribeWith string `yaml:"describeWith"`
	// Comments adds the comments of documents and spreadsheets to their
	// text (true); nil or false leaves them out, as they are often a
	// draft's private remarks.
	Comments *bool `yaml:"comments"`
	// ProviderFiles, nil or true (the default), sends a file too large to
	// go inline (over the provider's limit, or refused for its size)
	// through the model's provider's own file store (Gemini's, OpenAI's
	// and Anthropic's Files APIs), by reference, when the store (--db)
	// keeps references, as keel's stores do: the file is uploaded once
	// and named on later turns until the provider drops it. The provider
	// then keeps a copy of the file beyond the request (Gemini 48 hours,
	// OpenAI 30 days, Anthropic until it is deleted); false keeps every
	// file inline, and such a file is handled as refused: the sandbox's
	// note and its text.
	ProviderFiles *bool `yaml:"providerFiles"`
}

// describer returns what describes a's refused images for a model that
// reads none, nil when files.describeWith names no model or conversion
// is off; one per model named, shared by the agents naming it. A model
// without its API key is a warning, and no description.
func (f *File) describer(a Agent, opts BuildOptions, made map[string]processor.ImageDescriber) (processor.ImageDescriber, string, error) {
	name := cmp.Or(a.Files.DescribeWith, f.Files.DescribeWith)
	if name == "" || f.images(a) == nil {
		return nil, "", nil
	}
	if d, ok := made[name]; ok {
		return d, "", nil
	}
	m, err := opts.ResolveModel(name)
	switch {
	case errors.Is(err, ErrModelUnavailable):
		made[name] = nil
		return nil, fmt.Sprintf("files.describeWith: %s cannot describe images: %v", name, err), nil
	case err != nil:
		return nil, "", fmt.Errorf("config: files.describeWith %q: %w", name, err)
	}
	store, _ := memory.Capability[memory.FileDescriptions](opts.Memory)
	d := &processor.ModelDescriber{Model: m, Images: f.images(a), Store: store}
	made[name] = d
	return d, "", nil
}

// blamesReadable reports whether a's refused-file handler blames
// readable files for unnamed errors.
func (f *File) blamesReadable(a Agent) bool {
	on := cmp.Or(a.Files.BlameReadable, f.Files.BlameReadable)
	return on == nil || *on
}

// providerFiles returns the store of references a's refused-file
// handler sends files too large to go inline by, nil when that is off for
// a or the store keeps none. The store is looked for through the wrappers
// that observe it.
func (f *File) providerFiles(a Agent, opts BuildOptions) memory.ProviderFiles {
	if on := cmp.Or(a.Files.ProviderFiles, f.Files.ProviderFiles); on != nil && !*on {
		return nil
	}
	pf, _ := memory.Capability[memory.ProviderFiles](opts.Memory)
	return pf
}

// Refusals configures remembered refusals: which file types each model
// refused, kept in the store (--db) so that every keel on one database
// shares them, and so that a file the model refuses is handled before the
// call rather than after a failed one.
type Refusals struct {
	// Remember turns remembering on (nil or true, the default) or off.
	Remember *bool `yaml:"remember"`
	// Expiry is how long a refusal counts, such as 12h; 0 means 24h. The
	// file is then sent again, and the entry goes if the model takes it.
	Expiry time.Duration `yaml:"expiry"`
}

// converters returns the converters of a's refused files, nil when
// conversion is off for a.
func (f *File) converters(a Agent) processor.FileConverter {
	if !f.converts(a) {
		return nil
	}
	reg := convert.Default()
	if maxChars := cmp.Or(a.Files.MaxChars, f.Files.MaxChars); maxChars > 0 {
		reg = reg.WithLimits(convert.Limits{MaxChars: maxChars})
	}
	if comments := cmp.Or(a.Files.Comments, f.Files.Comments); comments != nil && *comments {
		reg = reg.WithOptions(convert.Options{Comments: true})
	}
	// LibreOffice, when installed, reads what keel's own converters do
	// not (WordPerfect, Works, Word 95, encrypted legacy files).
	if path, err := exec.LookPath("soffice"); err == nil {
		reg = reg.With(convert.LibreOffice(convert.LibreOfficeOptions{Path: path}))
	}
	return reg
}

// images returns what re-encodes and describes a's refused images, nil
// when conversion is off for a. Its HEIC and AVIF decoders are compiled
// once into the user's cache directory, so that each keel run does not
// pay for it again.
func (f *File) images(a Agent) processor.ImageConverter {
	if !f.converts(a) {
		return nil
	}
	return sharedImages()
}

// converts reports whether a's refused files are converted: files.convert,
// the agent's over the file's, on by default.
func (f *File) converts(a Agent) bool {
	on := cmp.Or(a.Files.Convert, f.Files.Convert)
	return on == nil || *on
}

var sharedImages = sync.OnceValue(func() *imageconv.Converter {
	dir, err := os.UserCacheDir()
	if err != nil {
		return imageconv.Default()
	}
	return imageconv.New(imageconv.Options{CacheDir: filepath.Join(dir, "keel", "wasm")})
})

// remembers reports whether refusals are remembered.
func (r Refusals) remembers() bool { return r.Remember == nil || *r.Remember }

// rememberedRefusals returns the refusals the agents share, kept by the
// store, or nil when they are off or the store keeps none.
func (f *File) rememberedRefusals(opts BuildOptions) *processor.RememberedRefusals {
	ledger, ok := opts.Memory.(processor.RefusalLedger)
	if !ok || !f.Refusals.remembers() {
		return nil
	}
	rr, err := processor.NewRememberedRefusals(ledger, processor.RefusalOptions{Expiry: f.Refusals.Expiry})
	if err != nil {
		return nil // no ledger: cannot happen once the assertion held
	}
	return rr
}

// validateFiles checks a files: mapping; add reports a mistake at a key
// below it.
func validateFiles(fl Files, add func(key, format string, args ...any)) {
	if fl.MaxChars < 0 {
		add("maxChars", "%d: use a positive number of characters, or leave it out for 100000", fl.MaxChars)
	}
	if p, m, ok := strings.Cut(fl.DescribeWith, "/"); fl.DescribeWith != "" && (!ok || p == "" || m == "") {
		add("describeWith", "%q: name a vision model as provider/model, such as google/gemini-2.5-flash", fl.DescribeWith)
	}
	if fl.Fetch != nil {
		fl.Fetch.validate(func(key, format string, args ...any) { add("fetch."+key, format, args...) })
	}
}
