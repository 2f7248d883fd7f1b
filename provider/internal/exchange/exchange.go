package exchange

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/keel-go/keel"
)

// The bounds an [Exchange] applies when [Timeouts] leaves them at 0.
const (
	// DefaultIdleTimeout bounds each wait for more of a request being sent
	// or of an answer that has started.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultFirstByteTimeout bounds the wait for an answer's first byte
	// once the request is sent.
	DefaultFirstByteTimeout = 10 * time.Minute
)

// MaxErrorBody bounds how much of an error answer's body an [Exchange]
// keeps.
const MaxErrorBody = 1 << 20

// Timeouts are the bounds of an [Exchange]. A zero field means its
// default; a negative one, no bound.
type Timeouts struct {
	// Idle bounds each wait for the provider to take more of the request,
	// or to send more of an answer that has started.
	Idle time.Duration
	// FirstByte bounds the wait for the answer's first byte once the
	// request is sent.
	FirstByte time.Duration
}

func (t Timeouts) resolve() Timeouts {
	t.Idle = cmp.Or(t.Idle, DefaultIdleTimeout)
	t.FirstByte = cmp.Or(t.FirstByte, DefaultFirstByteTimeout)
	return t
}

// Exchange is one model call's HTTP exchange. Make one per call with
// [New]; it is safe for the concurrent use net/http makes of it.
type Exchange struct {
	timeouts Timeouts

	mu     sync.Mutex
	sent   bool
	url    string
	status int
	header http.Header
	body   []byte
	broken error
}

// New returns an exchange bounded by t.
func New(t Timeouts) *Exchange { return &Exchange{timeouts: t.resolve()} }

// Record is what an [Exchange] saw.
type Record struct {
	// Sent reports that the request went to the transport.
	Sent bool
	// URL is the request's URL, once sent.
	URL string
	// Status and Header are the answer's, once it came; 0 and nil before.
	Status int
	Header http.Header
	// Body is the body of an error answer (status 400 and up), at most
	// [MaxErrorBody] bytes of it.
	Body []byte
}

// Record returns what the exchange saw so far.
func (x *Exchange) Record() Record {
	x.mu.Lock()
	defer x.mu.Unlock()
	return Record{Sent: x.sent, URL: x.url, Status: x.status, Header: x.header, Body: x.body}
}

// Broken returns what ended the exchange before its answer was whole: the
// error wrapping keel.ErrIdleTimeout when the provider stayed silent too
// long, else the error reading the answer's body failed with (a reset
// connection, a body cut short); nil when neither happened.
func (x *Exchange) Broken() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.broken
}

// BrokenError is the error of a call whose exchange broke (see
// [Exchange.Broken]), whatever the SDK made of the bytes it got: a
// retryable keel.APICallError of provider, with the URL (endpoint when
// the request never went), error status, headers and body the exchange
// kept, caused by what broke, since the same request may succeed. It is
// nil when the exchange did not break.
func (x *Exchange) BrokenError(provider, endpoint string) *keel.APICallError {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.broken == nil {
		return nil
	}
	status := x.status
	if status < 400 {
		status = 0 // a stream that broke after its 200 has no error status
	}
	url := x.url
	url = cmp.Or(url, endpoint)
	return &keel.APICallError{Provider: provider, URL: url, StatusCode: status, Header: x.header,
		Body: string(x.body), Retryable: true, Cause: x.broken}
}

func (x *Exchange) breaks(err error) {
	x.mu.Lock()
	if x.broken == nil {
		x.broken = err
	}
	x.mu.Unlock()
}

// Do sends req with send (the next middleware, or a transport's
// RoundTrip) under the exchange's bounds, and records the answer. The
// answer's body is watched while it is read; an error answer's body is
// read here, kept, and given back to the caller whole. req itself is not
// changed.
func (x *Exchange) Do(req *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	w := &watch{x: x, parent: req.Context(), cancel: cancel, timeouts: x.timeouts,
		progress: keel.CallProgressFrom(req.Context())}
	hasBody := req.Body != nil && req.Body != http.NoBody
	// A small body in memory is sent in the write of the headers, and the
	// transport says when that is done. Wrapped, net/http could not tell
	// it is in memory and would send the headers in a write of their own
	// first: a system call and a packet more per call.
	small := hasBody && req.GetBody != nil && req.ContentLength > 0 && req.ContentLength <= smallBody
	if small {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { w.sending(true) },
		})
	}
	req = req.WithContext(ctx)
	if hasBody {
		if !small {
			req.Body = &upload{rc: req.Body, w: w}
			if getBody := req.GetBody; getBody != nil {
				// The transport asks for the body again when it retries
				// on another connection: that copy is watched too.
				req.GetBody = func() (io.ReadCloser, error) {
					rc, err := getBody()
					if err != nil {
						return nil, err
					}
					return &upload{rc: rc, w: w}, nil
				}
			}
		}
		w.progress.Sending(req.URL.Host)
		w.start(uploading)
	} else {
		w.progress.Waiting(req.URL.Host)
		w.start(waiting)
	}
	x.mu.Lock()
	x.sent, x.url = true, req.URL.String()
	x.mu.Unlock()

	res, err := send(req)
	if err != nil {
		w.close()
		if silent := x.Broken(); silent != nil {
			return nil, silent // rather than the cancellation it caused
		}
		return nil, err
	}
	w.gotHeaders()
	res.Body = &download{rc: res.Body, w: w}
	x.mu.Lock()
	x.status, x.header = res.StatusCode, res.Header
	x.mu.Unlock()
	if res.StatusCode >= 400 {
		body, err := io.ReadAll(io.LimitReader(res.Body, MaxErrorBody))
		_ = res.Body.Close()
		if err != nil {
			return nil, err
		}
		x.mu.Lock()
		x.body = body
		x.mu.Unlock()
		res.Body = io.NopCloser(bytes.NewReader(body))
	}
	return res, nil
}

// smallBody is the size up to which a request's body held in memory
// (one with GetBody) is not wrapped to watch it being sent: it goes in
// a write or two, well within any bound.
const smallBody = 64 << 10

// The phases of an exchange, in order.
const (
	uploading = iota // the request's body is being sent
	waiting          // sent; waiting for the answer
	answered         // the answer's headers came
	streaming        // its body has started
	closed           // its body was closed, or the request failed
)

// watch is the timer of one exchange, moved on by its phases.
type watch struct {
	x        *Exchange
	parent   context.Context // the caller's
	cancel   context.CancelFunc
	timeouts Timeouts
	progress *keel.CallProgress // the caller's, told of each phase; may be nil

	mu       sync.Mutex
	phase    int
	timer    *time.Timer
	armed    bool
	deadline time.Time
	silent   error // set when a bound was passed
}

// start begins the exchange in phase p, with its bound running.
func (w *watch) start(p int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.phase = p
	w.arm()
}

// arm (re)starts the bound of the current phase; w.mu is held.
func (w *watch) arm() {
	d := w.timeouts.Idle
	if w.phase == waiting || w.phase == answered {
		d = w.timeouts.FirstByte
	}
	if d < 0 {
		w.disarm()
		return
	}
	w.armed, w.deadline = true, time.Now().Add(d)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
	} else {
		w.timer.Reset(d)
	}
}

// disarm stops the bound; w.mu is held.
func (w *watch) disarm() {
	w.armed = false
	if w.timer != nil {
		w.timer.Stop()
	}
}

// fire ends the exchange when the bound armed last has passed. A timer
// that went off as it was being stopped or moved finds it so and does
// nothing.
func (w *watch) fire() {
	w.mu.Lock()
	if !w.armed || w.silent != nil || time.Now().Before(w.deadline) {
		w.mu.Unlock()
		return
	}
	w.armed = false
	switch w.phase {
	case uploading:
		w.silent = fmt.Errorf("%w: the provider took nothing more of the request for %v", keel.ErrIdleTimeout, w.timeouts.Idle)
	case waiting, answered:
		w.silent = fmt.Errorf("%w: no answer within %v of sending the request", keel.ErrIdleTimeout, w.timeouts.FirstByte)
	default:
		w.silent = fmt.Errorf("%w: nothing received from the provider for %v", keel.ErrIdleTimeout, w.timeouts.Idle)
	}
	err := w.silent
	w.mu.Unlock()
	w.x.breaks(err)
	w.cancel()
}

// sending is called around each read of the request's body by the
// transport: the time the transport takes to send what it read is a wait
// on the provider, the read itself is not.
func (w *watch) sending(done bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase != uploading {
		return
	}
	if done {
		w.phase = waiting
		w.progress.Waiting("")
	}
	w.arm()
}

// pauseSending stops the bound while the transport reads the body.
func (w *watch) pauseSending() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase == uploading {
		w.disarm()
	}
}

// gotHeaders marks the answer's headers as come: from now on only reads of
// its body wait on the provider.
func (w *watch) gotHeaders() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase < answered {
		w.phase = answered
	}
	w.disarm()
	w.progress.Received(0)
}

// reading is called before each read of the answer's body.
func (w *watch) reading() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.phase == answered || w.phase == streaming {
		w.arm()
	}
}

// read is called after each read of the answer's body, with what it got.
func (w *watch) read(n int, err error) error {
	w.mu.Lock()
	w.disarm()
	if n > 0 && w.phase == answered {
		w.phase = streaming
	}
	if n > 0 {
		w.progress.Received(n)
	}
	silent := w.silent
	w.mu.Unlock()
	switch {
	case err == nil || err == io.EOF:
		return err
	case silent != nil:
		return silent // rather than the cancellation it caused
	case w.parent.Err() != nil:
		return err // the caller's own doing, not the connection's
	}
	w.x.breaks(err)
	return err
}

// close ends the exchange and releases its context.
func (w *watch) close() {
	w.mu.Lock()
	w.phase = closed
	w.disarm()
	w.mu.Unlock()
	if w.parent.Err() == nil {
		// A call the caller cut stays where it was, for the caller to
		// tell what stalled.
		w.progress.Ended()
	}
	w.cancel()
}

// upload is the request's body as the transport reads it.
type upload struct {
	rc io.ReadCloser
	w  *watch
}

func (u *upload) Read(p []byte) (int, error) {
	u.w.pauseSending()
	n, err := u.rc.Read(p)
	u.w.sending(err != nil)
	return n, err
}

func (u *upload) Close() error {
	u.w.sending(true)
	return u.rc.Close()
}

// download is the answer's body as the SDK reads it.
type download struct {
	rc io.ReadCloser
	w  *watch
}

func (d *download) Read(p []byte) (int, error) {
	d.w.reading()
	n, err := d.rc.Read(p)
	return n, d.w.read(n, err)
}

func (d *download) Close() error {
	err := d.rc.Close()
	d.w.close()
	return err
}
