package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// Issue is one problem found in a request body: the field (a path such as
// "messages[0].content[1].data") and what is wrong with it.
type Issue struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// errorBody is every error response: {"error": "..."} and, for
// validation errors, the issues.
type errorBody struct {
	Error  string  `json:"error"`
	Code   string  `json:"code,omitempty"`
	Issues []Issue `json:"issues,omitempty"`
}

// requestError is a caller's mistake found before anything ran.
type requestError struct {
	status int
	msg    string
	issues []Issue
}

func (e *requestError) Error() string { return e.msg }

func badRequest(msg string, issues ...Issue) *requestError {
	return &requestError{status: http.StatusBadRequest, msg: msg, issues: issues}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"server: encode response failed"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

func writeRequestError(w http.ResponseWriter, e *requestError) {
	writeJSON(w, e.status, errorBody{Error: e.msg, Issues: e.issues})
}

// errorStatus maps the error of a run to an HTTP status and a message.
//
// The client retries every answer that is not 4xx three times, so only
// failures that another attempt may fix are 5xx:
//
//   - the caller's mistakes (no input, a thread without memory, invalid
//     ids or content, a file the upload processor refused): 400, or 413
//     for a file over its size limit; another resource's thread: 404;
//   - a model that refused the request itself (an
//     [keel.UnsupportedFunctionalityError], or a provider answer 400, 404,
//     413, 415 or 422 that the processors could not work around): 422,
//     since the same request would be refused again;
//   - a model that cannot answer any call, such as one without an API key
//     (its error has a method ModelUnavailable() bool reporting true):
//     503, with the error, which says what to set;
//   - the provider's 429: 429, with its Retry-After;
//   - the provider's 401 or 403 (the server's key is wrong): 502, the
//     server's failure, with a message saying to check the key;
//   - any other provider failure (5xx, 408, 409, no answer): 502, or 504
//     for a timeout (the provider's 408 or 504, or a deadline exceeded);
//   - anything else: 500.
func errorStatus(err error) (int, string) {
	var fu *processor.FileUploadError
	var unsup *keel.UnsupportedFunctionalityError
	var api *keel.APICallError
	var unavailable modelUnavailable
	var timeout *generateTimeout
	switch {
	case errors.As(err, &timeout):
		return http.StatusGatewayTimeout, err.Error()
	case errors.As(err, &unavailable) && unavailable.ModelUnavailable():
		return http.StatusServiceUnavailable, err.Error()
	case errors.Is(err, agent.ErrNoInput), errors.Is(err, agent.ErrNoResource):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, agent.ErrNoMemory):
		return http.StatusBadRequest, "this agent has no memory: send the request without memory.thread"
	case errors.Is(err, memory.ErrNotFound):
		return http.StatusNotFound, "Thread not found"
	case errors.Is(err, memory.ErrInvalid):
		return http.StatusBadRequest, err.Error()
	case errors.As(err, &fu):
		if fu.Code == processor.CodeFileTooLarge {
			return http.StatusRequestEntityTooLarge, err.Error()
		}
		return http.StatusBadRequest, err.Error()
	case errors.As(err, &unsup):
		return http.StatusUnprocessableEntity, "the model cannot take this request: " + err.Error()
	case errors.As(err, &api):
		switch s := api.StatusCode; {
		case s == 400 || s == 404 || s == 413 || s == 415 || s == 422:
			return http.StatusUnprocessableEntity, "the model refused the request: " + err.Error()
		case s == 429:
			return http.StatusTooManyRequests, "the model is rate limited, try again later: " + err.Error()
		case s == 408 || s == 504:
			return http.StatusGatewayTimeout, err.Error()
		case s == 401 || s == 403:
			return http.StatusBadGateway, err.Error() + " (check the server's API key for " + orModel(api.Provider) + ")"
		default:
			return http.StatusBadGateway, err.Error()
		}
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, err.Error()
	default:
		return http.StatusInternalServerError, err.Error()
	}
}

// CodeRunTimeout is the code of the 504 of a /generate run cut by
// Config.GenerateTimeout.
const CodeRunTimeout = "RUN_TIMEOUT"

// modelUnavailable is implemented by the errors of a model that cannot
// answer any call (config.UnavailableModel's), so that the server tells
// them without importing the package that makes them.
type modelUnavailable interface{ ModelUnavailable() bool }

// unavailableModel returns the error of the agent's model when it is one
// that cannot answer any call, and nil otherwise.
func unavailableModel(a *agent.Agent) error { return unavailable(a.Config().Model) }

// unavailable returns the error of m when it is a model that cannot
// answer any call, and nil otherwise.
func unavailable(m keel.Model) error {
	if m, ok := m.(interface{ Unavailable() error }); ok {
		if err := m.Unavailable(); err != nil {
			var u modelUnavailable
			if errors.As(err, &u) && u.ModelUnavailable() {
				return err
			}
		}
	}
	return nil
}

func orModel(provider string) string {
	if provider == "" {
		return "the model"
	}
	return provider
}

// writeRunError answers a run that failed before any output was sent.
func (s *Server) writeRunError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		// The caller went away; nobody reads an answer.
		return
	}
	status, msg := errorStatus(err)
	var api *keel.APICallError
	if status == http.StatusTooManyRequests && errors.As(err, &api) {
		if v := api.Header.Get("Retry-After"); v != "" {
			w.Header().Set("Retry-After", v)
		}
	}
	if status >= 500 {
		s.logger.Error("server: run failed", "path", r.URL.Path, "err", err)
	}
	body := errorBody{Error: msg}
	var fu *processor.FileUploadError
	var timeout *generateTimeout
	switch {
	case errors.As(err, &fu):
		body.Code = fu.Code
	case errors.As(err, &timeout):
		body.Code = CodeRunTimeout
	}
	writeJSON(w, status, body)
}
