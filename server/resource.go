package server

import (
	"encoding/json"
	"net/http"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// ResourceHeader is the request header that names the resource a route
// acts for, for clients that cannot add a resourceId query parameter
// (set it in MastraClient's headers option).
const ResourceHeader = "X-Resource-Id"

// Who the caller is decides the resource a route acts for:
//
//   - a trusted caller (no auth, or the shared token) acts for the
//     resource the request names (the resourceId query parameter, the
//     X-Resource-Id header, the mastra__resourceId of a requestContext;
//     for generate and stream, memory.resource first). A thread route
//     that names none finds the thread by its id alone, as Mastra's
//     server does; one that names a resource finds only that resource's
//     thread.
//   - a user (a token Config.Users accepts) acts for the token's resource
//     only. The request may leave it out; naming another is 403, and
//     another resource's thread is 404 "Thread not found", like a missing
//     one, so that nothing about it shows.

// namedResource is the resource r names in its query or headers: the
// resourceId query parameter (resourceid for older clients), else the
// X-Resource-Id header, else the mastra__resourceId of a requestContext
// query parameter (base64 JSON, as @mastra/client-js sends it). "" when
// it names none; an invalid id is 400.
func namedResource(r *http.Request) (string, *requestError) {
	q := r.URL.Query()
	id := firstOf(q.Get("resourceId"), q.Get("resourceid"), r.Header.Get(ResourceHeader))
	if id == "" {
		id = requestContextResource(q.Get("requestContext"))
	}
	if id != "" && !memory.ValidID(id) {
		return "", badRequest("invalid resourceId", Issue{Field: "resourceId", Message: idRule})
	}
	return id, nil
}

// actFor returns the resource a route acts for, given the resources the
// request names ("" for none), in order of precedence. For a user it is
// the token's resource, and naming any other is 403; for a trusted caller
// it is the first one named, "" when none is.
func (c caller) actFor(named ...string) (string, *requestError) {
	if c.trusted() {
		return firstOf(named...), nil
	}
	for _, n := range named {
		if n != "" && n != c.resource {
			return "", &requestError{status: http.StatusForbidden,
				msg: "your token acts for resource " + c.resource + " only, and this request names " + trimField(n) +
					": leave the resource out or name your own"}
		}
	}
	return c.resource, nil
}

// errResourceRequired answers a route that must know its resource and got
// none.
var errResourceRequired = badRequest("resourceId is required: add ?resourceId=<owner> or the " + ResourceHeader + " header")

func requestContextResource(v string) string {
	if v == "" {
		return ""
	}
	b, err := keel.DecodeBase64(v)
	if err != nil {
		return ""
	}
	var rc map[string]any
	if json.Unmarshal(b, &rc) != nil {
		return ""
	}
	return contextResource(rc)
}

// contextResource is the resource a Mastra requestContext names.
func contextResource(rc map[string]any) string {
	for _, k := range []string{"mastra__resourceId", "resourceId"} {
		if s, ok := rc[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
