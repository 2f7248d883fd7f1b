package server_test

import (
	"encoding/json"
	"testing"

	"github.com/keel-go/keel/keeltest"
)

// GET /api/keel/caller says who the token is: a user and its resource,
// or a trusted caller, which alone may forget refusals.
func TestCaller(t *testing.T) {
	model := keeltest.NewModel()
	users := usersEnv(t, model)
	open := newEnv(t, envOptions{model: model})
	tests := []struct {
		name   string
		e      *env
		header []string
		status int
		want   string
	}{
		{"a user", users, bearer(userToken(t, "alice")), 200, `{"user":true,"resourceId":"alice","canForgetRefusals":false}`},
		{"the shared token", users, bearer("backend-secret"), 200, `{"user":false,"canForgetRefusals":true}`},
		{"no token", users, nil, 401, ""},
		{"a refused token", users, bearer("nope"), 401, ""},
		{"a server without auth", open, nil, 200, `{"user":false,"canForgetRefusals":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := tc.e.do("GET", "/api/keel/caller", nil, tc.header...)
			if status != tc.status {
				t.Fatalf("Got(GET /api/keel/caller) = %d %s; want %d", status, body, tc.status)
			}
			if tc.want == "" {
				return
			}
			var got, want any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(tc.want), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("Got(caller) = %s; want %s", gb, wb)
			}
		})
	}
}
