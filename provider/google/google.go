package google

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/httpclient"
)

// ProviderName is what [Model.Provider] returns and what the
// [keel.APICallError]s of this package name as their provider.
const ProviderName = "google"

// DefaultBaseURL is the Gemini API's address, used when neither
// [Options.BaseURL] nor GOOGLE_GEMINI_BASE_URL gives one. The SDK adds
// "/v1beta/models/...".
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

// The environment variables the adapter reads. The key is looked for in
// the order EnvAPIKey, EnvGoogleAPIKey, EnvGeminiAPIKey; GOOGLE_API_KEY
// comes before GEMINI_API_KEY because that is the SDK's own order.
const (
	// EnvAPIKey is keel's name for the Gemini API key, looked at first.
	EnvAPIKey = "GOOGLE_GENERATIVE_AI_API_KEY"
	// EnvGoogleAPIKey is the SDK's first name for the key.
	EnvGoogleAPIKey = "GOOGLE_API_KEY"
	// EnvGeminiAPIKey is the SDK's second name for the key.
	EnvGeminiAPIKey = "GEMINI_API_KEY"
	// EnvBaseURL gives the API's root when Options.BaseURL is empty.
	EnvBaseURL = "GOOGLE_GEMINI_BASE_URL"
)

// ErrNoAPIKey is wrapped by the error of [New] when no key was given and
// none is in the environment.
var ErrNoAPIKey = errors.New("google: no API key")

// Options configures a [Model]. The zero value reads everything from the
// environment.
type Options struct {
	// APIKey is the Gemini API key. Empty means GOOGLE_GENERATIVE_AI_API_KEY,
	// else GOOGLE_API_KEY, else GEMINI_API_KEY.
	APIKey string
	// BaseURL is the API's root, such as "http://127.0.0.1:8080" (the SDK
	// adds "/v1beta/models/..."). Empty means GOOGLE_GEMINI_BASE_URL, else
	// [DefaultBaseURL].
	BaseURL string
	// HTTPClient sends the requests; nil means a client over a transport
	// that all adapters share and that keeps idle connections for many
	// concurrent calls. Its Transport is wrapped, never changed.
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers http.Header
	// IdleTimeout bounds each wait for the provider once an answer has
	// started (and for it to take more of a request being sent): a call
	// that receives nothing for that long ends with a retryable
	// [keel.APICallError] whose cause is [keel.ErrIdleTimeout]. 0 means
	// 60 s; a negative value, no bound.
	IdleTimeout time.Duration
	// FirstByteTimeout bounds the wait for an answer's first byte once the
	// request is sent, streamed or not: a model may think for minutes
	// before it writes anything. Passing it ends the call as IdleTimeout
	// does. 0 means 10 minutes; a negative value, no bound.
	FirstByteTimeout time.Duration
}

// Model is a Gemini model behind the Gemini API (not Vertex AI). It
// implements [keel.Model] and is safe for concurrent use.
type Model struct {
	name     string
	baseURL  string
	client   *genai.Client
	sigs     *signatureCache
	timeouts exchange.Timeouts
	files    *fileStore
}

// New returns the Gemini model name (such as "gemini-2.5-flash") with
// opts. It fails, naming the variable to set, when there is no API key.
// Nothing is sent until the model is called.
func New(name string, opts Options) (*Model, error) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "models/")
	if name == "" {
		return nil, errors.New("google: new: empty model name")
	}
	key := opts.APIKey
	for _, env := range []string{EnvAPIKey, EnvGoogleAPIKey, EnvGeminiAPIKey} {
		if key != "" {
			break
		}
		key = strings.TrimSpace(os.Getenv(env))
	}
	if key == "" {
		return nil, fmt.Errorf("%w: set %s (or %s, %s), or pass Options.APIKey",
			ErrNoAPIKey, EnvAPIKey, EnvGeminiAPIKey, EnvGoogleAPIKey)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = strings.TrimSpace(os.Getenv(EnvBaseURL))
	}
	baseURL = cmp.Or(baseURL, DefaultBaseURL)
	hc := *httpclient.Or(opts.HTTPClient)
	hc.Transport = &captureTransport{base: hc.Transport}
	// The backend and base URL are always given so that the SDK's own
	// environment (GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL) and
	// genai.SetDefaultBaseURLs cannot override what was resolved here.
	// RetryOptions stay nil: the SDK then sends each request once, and
	// keel's processors own retrying.
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:     key,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: &hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL: baseURL,
			Headers: opts.Headers.Clone(),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("google: new: %w", err)
	}
	m := &Model{name: name, baseURL: baseURL, client: client, sigs: newSignatureCache(signatureCacheSize),
		timeouts: exchange.Timeouts{Idle: opts.IdleTimeout, FirstByte: opts.FirstByteTimeout}}
	if m.files, err = newFileStore(m, &hc, baseURL, key, opts.Headers); err != nil {
		return nil, err
	}
	return m, nil
}

// Provider returns "google".
func (m *Model) Provider() string { return ProviderName }

// Name returns the model's name, such as "gemini-2.5-flash".
func (m *Model) Name() string { return m.name }
