package googletest

import (
	"cmp"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// DefaultText is what a [Server] answers when [Options.Text] is empty.
const DefaultText = "Hello from Gemini."

// Options says how a [Server] answers.
type Options struct {
	// Text is the model's answer; "" means [DefaultText]. A stream sends
	// it word by word.
	Text string
	// Unsupported lists media types Gemini does not read: a request
	// carrying an inline file of one of them gets the real 400
	// INVALID_ARGUMENT "Unsupported MIME type: <type>".
	Unsupported []string
	// Internal lists media types that make Gemini fail: a request carrying
	// an inline file of one of them gets the real 502 INTERNAL, which says
	// nothing about the file.
	Internal []string
	// PayloadLimit, when above 0, is the size of a generateContent body
	// over which the server answers with Gemini's real 400 "Request
	// payload size exceeds the limit: 20971520 bytes." (the message names
	// Gemini's limit whatever this one is).
	PayloadLimit int
	// FileTTL is how long the Files API keeps a file: its expirationTime
	// is the upload's time plus FileTTL. 0 means 48 hours, as Gemini.
	FileTTL time.Duration
	// ProcessingPolls is how many reads of a new file answer its state as
	// PROCESSING before ACTIVE (the finalizing answer counts as one read
	// when it is above 0).
	ProcessingPolls int
	// Respond, when not nil, answers each request first, the Files API's
	// too; returning false leaves the request to the behaviour above. n
	// counts requests from 0.
	Respond func(r Request, n int) (providertest.Reply, bool)
}

// Request is one request a [Server] received.
type Request struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
	// Model is the model named in the path, such as "gemini-2.5-flash".
	Model string
	// Stream reports a streamGenerateContent call.
	Stream bool
}

// Decode decodes the request's body.
func (r Request) Decode() (Body, error) { return Decode(r.Body) }

// Server is a local server speaking the Gemini API's generateContent and
// streamGenerateContent (alt=sse) under /v1beta/models/, and its Files
// API (see the package documentation). Point an adapter
// at [Server.URL] (the SDK adds the path). It runs on a
// [providertest.Server] whose answers come from [Options], so a reply of
// [Options.Respond] may stall or reset the connection as any
// [providertest.Reply] can. It is safe for concurrent use.
type Server struct {
	srv   *providertest.Server
	opts  Options
	files *fileAPI
}

// NewServer starts a [Server] and closes it when the test ends.
func NewServer(t testing.TB, opts Options) *Server {
	t.Helper()
	s := Start(opts)
	t.Cleanup(s.Close)
	return s
}

// Start starts a [Server] outside a test; the caller must [Server.Close]
// it.
func Start(opts Options) *Server {
	s := &Server{opts: opts, files: &fileAPI{ttl: opts.FileTTL, polls: opts.ProcessingPolls,
		pending: make(map[string]*pendingUpload), files: make(map[string]*storedFile)}}
	s.srv = providertest.StartFunc(func(r providertest.Recorded, n int) providertest.Reply {
		rep := s.answer(request(r), n)
		rep.ContentType = cmp.Or(rep.ContentType, "application/json; charset=UTF-8") // as Gemini sends it
		return rep
	})
	return s
}

// URL is the server's base URL, such as "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.srv.URL() }

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	recs := s.srv.Requests()
	out := make([]Request, len(recs))
	for i, r := range recs {
		out[i] = request(r)
	}
	return out
}

// request is r as a Gemini request: the model and method its path names.
func request(r providertest.Recorded) Request {
	req := Request{Method: r.Method, Path: r.Path, Query: r.Query, Header: r.Header, Body: r.Body}
	rest, _ := strings.CutPrefix(r.Path, modelsPath)
	model, method, _ := strings.Cut(rest, ":")
	req.Model, req.Stream = model, method == "streamGenerateContent"
	return req
}

// modelsPath is where the API's model methods are.
const modelsPath = "/v1beta/models/"

// answer is what Gemini answers req, the n-th request, as the server's
// options say.
func (s *Server) answer(req Request, n int) providertest.Reply {
	opts := s.opts
	if opts.Respond != nil {
		if rep, ok := opts.Respond(req, n); ok {
			return rep
		}
	}
	if isFilesAPI(req.Path) {
		return s.answerFiles(req)
	}
	_, method, _ := strings.Cut(strings.TrimPrefix(req.Path, modelsPath), ":")
	switch {
	case !strings.HasPrefix(req.Path, modelsPath) || req.Method != http.MethodPost ||
		(method != "generateContent" && method != "streamGenerateContent"):
		return providertest.Reply{Status: 404, Body: ErrorBody(404, "NOT_FOUND", "Method not found.")}
	case req.Header.Get("X-Goog-Api-Key") == "":
		return providertest.Reply{Status: 403, Body: ErrorBody(403, "PERMISSION_DENIED", PermissionDeniedMessage)}
	}
	if opts.PayloadLimit > 0 && len(req.Body) > opts.PayloadLimit {
		return providertest.Reply{Status: 400, Body: PayloadTooLargeBody}
	}
	decoded, err := Decode(req.Body)
	if err != nil {
		return providertest.Reply{Status: 400, Body: ErrorBody(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")}
	}
	if id := s.goneFile(decoded); id != "" {
		return providertest.Reply{Status: 403, Body: FileGoneBody(id)}
	}
	for _, mt := range decoded.InlineMediaTypes() {
		if containsType(opts.Unsupported, mt) {
			return providertest.Reply{Status: 400, Body: UnsupportedMIMEBody(mt)}
		}
		if containsType(opts.Internal, mt) {
			return providertest.Reply{Status: 502, Body: InternalBody(502)}
		}
	}
	text := opts.Text
	text = cmp.Or(text, DefaultText)
	if req.Stream {
		return providertest.Reply{Body: StreamTextBody(text), ContentType: "text/event-stream"}
	}
	return providertest.Reply{Body: TextBody(text)}
}

func containsType(list []string, mt string) bool {
	for _, t := range list {
		if keel.NormalizeMediaType(t) == keel.NormalizeMediaType(mt) {
			return true
		}
	}
	return false
}
