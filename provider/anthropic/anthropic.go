package anthropic

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/httpclient"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/keel-go/keel/provider/internal/upload"
)

// ProviderName is the name [Model.Provider] returns and the Provider of
// every [keel.APICallError] the adapter builds.
const ProviderName = "anthropic"

// The environment variables New reads when [Options] leaves a field empty.
const (
	EnvAPIKey  = "ANTHROPIC_API_KEY"
	EnvBaseURL = "ANTHROPIC_BASE_URL"
)

// DefaultMaxOutputTokens is the max_tokens sent when a request leaves
// MaxOutputTokens at 0: the Messages API requires the field.
const DefaultMaxOutputTokens = 4096

// defaultBaseURL is the SDK's default API root.
const defaultBaseURL = "https://api.anthropic.com"

// ErrMissingAPIKey is returned (wrapped) by [New] when neither
// Options.APIKey nor ANTHROPIC_API_KEY holds a key.
var ErrMissingAPIKey = errors.New("anthropic: missing API key: set " + EnvAPIKey + " or Options.APIKey")

// Options configures [New]. The zero value reads everything from the
// environment.
type Options struct {
	// APIKey authenticates every request. Empty means ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL is the API's root, such as "http://localhost:8080"; the SDK
	// adds "/v1/messages". Empty means ANTHROPIC_BASE_URL, else the SDK's
	// default (https://api.anthropic.com).
	BaseURL string
	// HTTPClient sends the requests. Nil means a client over a transport
	// that all adapters share and that keeps idle connections for many
	// concurrent calls.
	HTTPClient *http.Client
	// Headers are sent with every request; a header the SDK sets itself
	// (such as anthropic-version) is replaced.
	Headers http.Header
	// IdleTimeout bounds each wait for the provider once an answer has
	// started (and for it to take more of a request being sent): a call
	// that receives nothing for that long ends with a retryable
	// [keel.APICallError] whose cause is [keel.ErrIdleTimeout]. 0 means
	// 60 s; a negative value, no bound. The API sends ping events while a
	// stream is quiet, so a healthy stream never comes near it.
	IdleTimeout time.Duration
	// FirstByteTimeout bounds the wait for an answer's first byte once the
	// request is sent, streamed or not: a model may think for minutes
	// before it writes anything. Passing it ends the call as IdleTimeout
	// does. 0 means 10 minutes; a negative value, no bound.
	FirstByteTimeout time.Duration
}

// Model is a Claude model behind the Anthropic Messages API. It implements
// [keel.Model] and is safe for concurrent use.
type Model struct {
	name   string
	client anthropic.Client
	// endpoint is the Messages API's URL, for errors that carry no request.
	endpoint string
	timeouts exchange.Timeouts
	files    *fileStore
}

var _ keel.Model = (*Model)(nil)

// New returns the model named model (such as "claude-sonnet-4-5") with the
// given options. It fails when model is empty or no API key is configured;
// it sends nothing.
func New(model string, opts Options) (*Model, error) {
	if model == "" {
		return nil, errors.New("anthropic: new: empty model name")
	}
	key := opts.APIKey
	if key == "" {
		key = os.Getenv(EnvAPIKey)
	}
	if key == "" {
		return nil, fmt.Errorf("anthropic: new %s: %w", model, ErrMissingAPIKey)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = os.Getenv(EnvBaseURL)
	}
	// keel's processors own retrying, so the SDK must send each request
	// exactly once.
	ro := []option.RequestOption{option.WithAPIKey(key), option.WithMaxRetries(0)}
	if baseURL != "" {
		ro = append(ro, option.WithBaseURL(baseURL))
	}
	ro = append(ro, option.WithHTTPClient(httpclient.Or(opts.HTTPClient)))
	for k, vs := range opts.Headers {
		// The first value replaces the SDK's own header of that name
		// (anthropic-version, say); the others are added to it.
		for i, v := range vs {
			if i == 0 {
				ro = append(ro, option.WithHeader(k, v))
			} else {
				ro = append(ro, option.WithHeaderAdd(k, v))
			}
		}
	}
	endpoint := defaultBaseURL
	if baseURL != "" {
		endpoint = strings.TrimRight(baseURL, "/")
	}
	m := &Model{name: model, client: anthropic.NewClient(ro...), endpoint: endpoint + "/v1/messages",
		timeouts: exchange.Timeouts{Idle: opts.IdleTimeout, FirstByte: opts.FirstByteTimeout}}
	m.files = &fileStore{m: m, scope: upload.Scope(ProviderName, endpoint, key)}
	return m, nil
}

// Provider returns "anthropic".
func (m *Model) Provider() string { return ProviderName }

// Name returns the model name given to [New].
func (m *Model) Name() string { return m.name }

// Generate sends req to the Messages API and returns the whole answer. A
// file the API cannot take is refused with a
// [*keel.UnsupportedFunctionalityError] before anything is sent.
func (m *Model) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	c := m.newCall()
	params, err := m.params(req, c)
	if err != nil {
		return nil, err
	}
	msg, err := m.client.Messages.New(ctx, params, append(requestOptions(req), c.option())...)
	if err != nil {
		return nil, callError(ctx, "generate", m.endpoint, c, err)
	}
	return response(msg), nil
}

// Stream sends req to the Messages API with streaming on and yields text
// deltas, complete tool calls and a final finish event. Stopping the
// iteration early cancels the request.
func (m *Model) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		c := m.newCall()
		params, err := m.params(req, c)
		if err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var whole wholeAnswer
		ro := append(requestOptions(req), c.option(), option.WithMiddleware(whole.capture))
		stream := m.client.Messages.NewStreaming(ctx, params, ro...)
		defer stream.Close()
		readStream(ctx, m.endpoint, c, stream, &whole, yield)
	}
}

func (m *Model) params(req *keel.Request, c *call) (anthropic.MessageNewParams, error) {
	if req == nil {
		return anthropic.MessageNewParams{}, errors.New("anthropic: build request: nil request")
	}
	p, err := buildParams(m.name, req, c.files)
	c.sent = p.Messages
	return p, err
}

// call is the HTTP side of one model call: the request's inline files,
// the exchange that sends them under the model's timeouts, and the
// messages as sent, which an error answer points into.
type call struct {
	files *inline.Files
	x     *exchange.Exchange
	sent  []anthropic.MessageParam
}

func (m *Model) newCall() *call {
	return &call{files: inline.New(), x: exchange.New(m.timeouts)}
}

// option is the middleware that writes the inline files into the body and
// sends it through the exchange.
func (c *call) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		req, err := c.files.Request(req)
		if err != nil {
			return nil, err
		}
		return c.x.Do(req, next)
	})
}

// requestOptions turns the per-call headers into SDK options, and adds
// the Files API's beta header when the request names a file by ID.
func requestOptions(req *keel.Request) []option.RequestOption {
	ro := make([]option.RequestOption, 0, len(req.Headers)+1)
	for k, v := range req.Headers {
		ro = append(ro, option.WithHeader(k, v))
	}
	if usesFileIDs(req) {
		ro = append(ro, option.WithHeaderAdd("anthropic-beta", FilesBeta))
	}
	return ro
}
