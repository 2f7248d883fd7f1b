package openai

import (
	"context"
	"iter"
	"net/http"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// call is the HTTP side of one model call, the same for Chat Completions
// and the Responses API: the request's inline files, and the exchange
// that sends them under the model's timeouts and records the answer.
type call struct {
	files *inline.Files
	x     *exchange.Exchange
}

func (m *Model) newCall() *call {
	return &call{files: inline.New(), x: exchange.New(m.timeouts)}
}

// options are the call's request options: the request's headers, and the
// middleware that writes the inline files into the body and sends it
// through the exchange; a stream asks for events.
func (c *call) options(req *keel.Request, stream bool) []option.RequestOption {
	opts := make([]option.RequestOption, 0, len(req.Headers)+2)
	for k, v := range req.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	opts = append(opts, option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		r, err := c.files.Request(r)
		if err != nil {
			return nil, err
		}
		return c.x.Do(r, next)
	}))
	if stream {
		opts = append(opts, option.WithHeader("Accept", "text/event-stream"))
	}
	return opts
}

// generate is the part of a non-streaming call both APIs share: build the
// request's parameters (refusing, before anything is sent, what the API
// cannot take), send them, and classify a failure.
func generate[P, R any](ctx context.Context, m *Model, req *keel.Request,
	params func(*keel.Request, *inline.Files) (P, error),
	send func(context.Context, P, ...option.RequestOption) (R, error),
) (R, error) {
	c := m.newCall()
	p, err := params(req, c.files)
	if err != nil {
		var zero R
		return zero, err
	}
	res, err := send(ctx, p, c.options(req, false)...)
	if err != nil {
		return res, m.toError(ctx, c.x, err)
	}
	return res, nil
}

// stream is the part of a streaming call both APIs share: build the
// parameters, open the stream, hand it to read, and close the connection
// when read returns, so that a consumer leaving early stops the answer.
func stream[P, E any](ctx context.Context, m *Model, req *keel.Request,
	params func(*keel.Request, *inline.Files) (P, error),
	open func(context.Context, P, ...option.RequestOption) *ssestream.Stream[E],
	read func(ctx context.Context, c *call, s *ssestream.Stream[E], yield func(keel.StreamEvent, error) bool),
) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		c := m.newCall()
		p, err := params(req, c.files)
		if err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := open(ctx, p, c.options(req, true)...)
		defer s.Close()
		read(ctx, c, s, yield)
	}
}

// ended is the error a stream's events ran out with: the SDK's,
// classified, or else the caller's context's; nil when the stream ended
// as streams end.
func (m *Model) ended(ctx context.Context, c *call, err error) error {
	if err != nil {
		return m.toError(ctx, c.x, err)
	}
	return ctx.Err()
}
