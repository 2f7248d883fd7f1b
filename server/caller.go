package server

import "net/http"

// wireCaller is who the caller of GET /api/keel/caller is, so that a
// client (the console) knows whether it may choose the resource it acts
// for: a user (a token Config.Users accepts) acts for its token's
// resource only, and may not forget remembered refusals.
type wireCaller struct {
	User bool `json:"user"`
	// ResourceID is the user's resource; absent for a trusted caller,
	// which names the resource in each request.
	ResourceID string `json:"resourceId,omitempty"`
	// CanForgetRefusals tells whether DELETE /api/keel/refusals is open
	// to the caller.
	CanForgetRefusals bool `json:"canForgetRefusals"`
}

// getCaller answers GET /api/keel/caller.
func (s *Server) getCaller(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r)
	writeJSON(w, http.StatusOK, wireCaller{User: !c.trusted(), ResourceID: c.resource, CanForgetRefusals: c.trusted()})
}
