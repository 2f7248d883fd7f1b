package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/httpclient"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// The APIs a [Model] can call, the values of [Options.API].
const (
	// APIChat is Chat Completions (POST /chat/completions), the default.
	APIChat = "chat"
	// APIResponses is the Responses API (POST /responses).
	APIResponses = "responses"
)

// The environment variables [New] reads.
const (
	// EnvAPIKey holds the OpenAI API key.
	EnvAPIKey = "OPENAI_API_KEY"
	// EnvBaseURL holds the OpenAI base URL, such as http://host:port/v1.
	EnvBaseURL = "OPENAI_BASE_URL"
	// EnvCompatibleAPIKey holds the key of an OpenAI-compatible server
	// (optional: many local servers need none).
	EnvCompatibleAPIKey = "OPENAI_COMPATIBLE_API_KEY"
	// EnvCompatibleBaseURL holds the base URL of an OpenAI-compatible
	// server, such as http://localhost:11434/v1 for Ollama.
	EnvCompatibleBaseURL = "OPENAI_COMPATIBLE_BASE_URL"
)

// ErrNoAPIKey is returned (wrapped) by [New] when no key is given or set in
// the environment.
var ErrNoAPIKey = errors.New("openai: no API key")

// ErrNoBaseURL is returned (wrapped) by [New] for an OpenAI-compatible
// server without a base URL.
var ErrNoBaseURL = errors.New("openai: no base URL")

// Options configures a [Model]. The zero value talks to OpenAI's Chat
// Completions API with the key from OPENAI_API_KEY.
type Options struct {
	// APIKey is the key; empty means OPENAI_API_KEY (for an
	// OpenAI-compatible server, OPENAI_COMPATIBLE_API_KEY, and none is
	// fine).
	APIKey string
	// BaseURL is the API's base URL including its version path, such as
	// "http://localhost:11434/v1"; empty means OPENAI_BASE_URL (for an
	// OpenAI-compatible server, OPENAI_COMPATIBLE_BASE_URL), else the
	// SDK's default.
	BaseURL string
	// HTTPClient sends the requests; nil means a client (no timeout: cancel
	// through the context) over a transport that all adapters share and
	// that keeps idle connections for many concurrent calls.
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers http.Header
	// API is [APIChat] (the default, also for "") or [APIResponses].
	API string
	// OnlyPDFDocuments makes the Responses API adapter refuse, before
	// sending, every document but a PDF, as Chat Completions does. By
	// default the Responses API gets documents of any media type as
	// input_file parts, since it reads docx, xlsx, csv and more itself;
	// audio and video are refused either way. Chat Completions ignores it.
	OnlyPDFDocuments bool
	// ImageTypes are the image media types sent as images; any other
	// image/* type is refused before sending, with a
	// [keel.UnsupportedFunctionalityError] naming it. nil means what
	// OpenAI reads (image/png, image/jpeg, image/gif, image/webp), for an
	// OpenAI-compatible server too, since most pass images on to models
	// trained on those; list more for a server that reads them, or "image/*"
	// for every image.
	ImageTypes []string
	// IdleTimeout bounds each wait for the provider once an answer has
	// started (and for it to take more of a request being sent): a call
	// that receives nothing for that long ends with a retryable
	// [keel.APICallError] whose cause is [keel.ErrIdleTimeout]. 0 means
	// 60 s; a negative value, no bound. Raise it for models that think in
	// silence in the middle of a stream.
	IdleTimeout time.Duration
	// FirstByteTimeout bounds the wait for an answer's first byte once the
	// request is sent, streamed or not: a model may think for minutes
	// before it writes anything. Passing it ends the call as IdleTimeout
	// does. 0 means 10 minutes; a negative value, no bound.
	FirstByteTimeout time.Duration
	// ProviderName, when set to anything but "openai", marks an
	// OpenAI-compatible server (such as "ollama"): Provider returns it,
	// the OPENAI_COMPATIBLE_* variables replace the OPENAI_* ones, a base
	// URL is required and a key is not.
	ProviderName string
}

// Model is a [keel.Model] over OpenAI's API, or an OpenAI-compatible
// server's. It is safe for concurrent use.
type Model struct {
	name        string
	provider    string
	api         string
	passThrough bool
	imageTypes  []string
	timeouts    exchange.Timeouts
	chat        sdk.ChatCompletionService
	responses   responses.ResponseService
	// files is OpenAI's Files API; nil for a compatible server.
	files *fileStore
}

var _ keel.Model = (*Model)(nil)

// New returns a model called name (such as "gpt-4o-mini"). It fails with
// an error wrapping [ErrNoAPIKey] when OpenAI is meant and no key is
// given or set, and with [ErrNoBaseURL] for an OpenAI-compatible server
// without a base URL; both name the variable to set.
func New(name string, opts Options) (*Model, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("openai: new: empty model name")
	}
	api := opts.API
	switch api {
	case "":
		api = APIChat
	case APIChat, APIResponses:
	default:
		return nil, fmt.Errorf("openai: new: unknown API %q: use %q or %q", opts.API, APIChat, APIResponses)
	}
	provider := opts.ProviderName
	compatible := provider != "" && provider != "openai"
	provider = cmp.Or(provider, "openai")

	keyVar, urlVar := EnvAPIKey, EnvBaseURL
	if compatible {
		keyVar, urlVar = EnvCompatibleAPIKey, EnvCompatibleBaseURL
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv(keyVar)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = os.Getenv(urlVar)
	}
	if key == "" && !compatible {
		return nil, fmt.Errorf("%w: set %s or pass Options.APIKey", ErrNoAPIKey, keyVar)
	}
	if baseURL == "" && compatible {
		return nil, fmt.Errorf("%w for %s: set %s or pass Options.BaseURL", ErrNoBaseURL, provider, urlVar)
	}

	// The options are built here rather than by sdk.NewClient, which reads
	// OPENAI_* variables: an OpenAI-compatible server must never receive
	// the OpenAI key or organisation.
	ropts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithAPIKey(key),
		option.WithMaxRetries(0), // keel's processors own retrying
	}
	ropts = append(ropts, option.WithHTTPClient(httpclient.Or(opts.HTTPClient)))
	if baseURL != "" {
		ropts = append(ropts, option.WithBaseURL(baseURL))
	}
	org, project := "", ""
	if !compatible {
		org, project = os.Getenv("OPENAI_ORG_ID"), os.Getenv("OPENAI_PROJECT_ID")
		if org != "" {
			ropts = append(ropts, option.WithOrganization(org))
		}
		if project != "" {
			ropts = append(ropts, option.WithProject(project))
		}
	}
	for k, vs := range opts.Headers {
		for _, v := range vs {
			ropts = append(ropts, option.WithHeaderAdd(k, v))
		}
	}
	m := &Model{
		name:        name,
		provider:    provider,
		api:         api,
		passThrough: !opts.OnlyPDFDocuments,
		imageTypes:  normalizeTypes(opts.ImageTypes),
		timeouts:    exchange.Timeouts{Idle: opts.IdleTimeout, FirstByte: opts.FirstByteTimeout},
		chat:        sdk.NewChatCompletionService(ropts...),
		responses:   responses.NewResponseService(ropts...),
	}
	if !compatible {
		m.files = newFileStore(m, ropts, key, baseURL, org, project)
	}
	return m, nil
}

// openAIImageTypes are the image formats OpenAI reads: png, jpeg, gif
// (not animated) and webp; anything else is answered
// "invalid_image_format".
var openAIImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

func normalizeTypes(types []string) []string {
	if types == nil {
		return openAIImageTypes
	}
	out := make([]string, 0, len(types))
	for _, t := range types {
		out = append(out, keel.NormalizeMediaType(t))
	}
	return out
}

// takesImage reports whether images of mediaType (normalised) are sent.
func (m *Model) takesImage(mediaType string) bool {
	if mediaType == "image/jpg" || mediaType == "image/pjpeg" {
		mediaType = "image/jpeg"
	}
	for _, t := range m.imageTypes {
		if keel.MatchMediaClass(t, mediaType) {
			return true
		}
	}
	return false
}

// compatible reports an OpenAI-compatible server rather than OpenAI.
func (m *Model) compatible() bool { return m.provider != "openai" }

// Provider returns "openai", or [Options.ProviderName].
func (m *Model) Provider() string { return m.provider }

// Name returns the model's name, such as "gpt-4o-mini".
func (m *Model) Name() string { return m.name }

// API returns [APIChat] or [APIResponses].
func (m *Model) API() string { return m.api }

// Generate sends req and returns the whole answer.
func (m *Model) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	if m.api == APIResponses {
		return m.generateResponses(ctx, req)
	}
	return m.generateChat(ctx, req)
}

// Stream sends req and yields the answer as it arrives. Leaving the loop
// early closes the connection.
func (m *Model) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	if m.api == APIResponses {
		return m.streamResponses(ctx, req)
	}
	return m.streamChat(ctx, req)
}
