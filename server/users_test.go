package server_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

var jwtSecret = []byte("users-test-secret-of-at-least-32-bytes")

// userToken is an HS256 token for sub, valid for an hour, for audience
// keel; extra claims replace or (nil) remove the default ones.
func userToken(t testing.TB, sub string, extra ...any) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"sub": sub, "aud": "keel", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(c, extra[i].(string))
		} else {
			c[extra[i].(string)] = extra[i+1]
		}
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(jwtSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

// usersEnv is a server in per-user mode (HS256 tokens for audience keel,
// and the shared token "backend-secret"), where alice and bob each have a
// thread with one message.
func usersEnv(t *testing.T, model keel.Model) *env {
	t.Helper()
	v, err := jwtauth.New(jwtauth.Options{Secret: jwtSecret, Audience: []string{"keel"}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		c.Users, c.Token = v, "backend-secret"
	}})
	for _, who := range []string{"alice", "bob"} {
		must(e.mem.CreateThread(t.Context(), memory.Thread{ID: who + "-1", ResourceID: who, Title: who + "'s"}))
		must(e.mem.SaveMessages(t.Context(), who, who+"-1", []keel.Message{keel.UserText(who + "'s secret")}))
	}
	return e
}

// Every route acts for the token's resource only: another resource's
// thread is 404 with no data and stays as it was; naming another resource
// is 403; nothing runs or is stored for either.
func TestUsersCrossResourceRefused(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "should not be called"})
	e := usersEnv(t, model)
	alice := bearer(userToken(t, "alice"))
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		substr                   string
	}{
		{"get bob's thread", "GET", "/api/memory/threads/bob-1?agentId=support", "", nil, 404, "Thread not found"},
		{"bob's messages", "GET", "/api/memory/threads/bob-1/messages?agentId=support", "", nil, 404, "Thread not found"},
		{"update bob's thread", "PATCH", "/api/memory/threads/bob-1?agentId=support", `{"title":"pwned"}`, nil, 404, "Thread not found"},
		{"delete bob's thread", "DELETE", "/api/memory/threads/bob-1?agentId=support", "", nil, 404, "Thread not found"},
		{"generate in bob's thread", "POST", "/api/agents/support/generate", `{"messages":"hi","memory":{"thread":"bob-1"}}`, nil, 404, "Thread not found"},
		{"stream in bob's thread", "POST", "/api/agents/support/stream", `{"messages":"hi","memory":{"thread":"bob-1"}}`, nil, 404, "Thread not found"},
		{"list bob's threads", "GET", "/api/memory/threads?resourceId=bob", "", nil, 403, "acts for resource alice only"},
		{"get naming bob", "GET", "/api/memory/threads/bob-1?resourceId=bob", "", nil, 403, "acts for resource alice only"},
		{"get own naming bob by header", "GET", "/api/memory/threads/alice-1", "", []string{server.ResourceHeader, "bob"}, 403, "names bob"},
		{"messages naming bob in requestContext", "GET", "/api/memory/threads/bob-1/messages?requestContext=" +
			base64.StdEncoding.EncodeToString([]byte(`{"mastra__resourceId":"bob"}`)), "", nil, 403, "names bob"},
		{"delete naming bob", "DELETE", "/api/memory/threads/bob-1?resourceId=bob", "", nil, 403, "acts for resource alice only"},
		{"create for bob", "POST", "/api/memory/threads", `{"resourceId":"bob","threadId":"bob-2"}`, nil, 403, "acts for resource alice only"},
		{"generate as bob", "POST", "/api/agents/support/generate", `{"messages":"hi","memory":{"thread":"bob-1","resource":"bob"}}`, nil, 403, "names bob"},
		{"generate without thread as bob", "POST", "/api/agents/support/generate", `{"messages":"hi","resourceId":"bob"}`, nil, 403, "names bob"},
		{"stream as bob", "POST", "/api/agents/support/stream", `{"messages":"hi","memory":{"thread":"new-1","resource":"bob"}}`, nil, 403, "names bob"},
		{"stream as bob in requestContext", "POST", "/api/agents/support/stream", `{"messages":"hi","memory":{"thread":"new-1"},"requestContext":{"mastra__resourceId":"bob"}}`, nil, 403, "names bob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			status, resp := e.do(tt.method, tt.path, body, append(alice, tt.header...)...)
			v := wantError(t, tt.name, status, resp, tt.status, tt.substr)
			if len(v) != 1 || strings.Contains(string(resp), "bob's") {
				t.Errorf("Got(%s) = %s; want the error only, nothing of bob's", tt.name, resp)
			}
		})
	}
	// Nothing changed: bob's thread is whole, no thread was made, and the
	// model was never called.
	th := must(e.mem.GetThread(t.Context(), "bob", "bob-1"))
	if msgs := storedMessages(t, e.mem, "bob", "bob-1"); th.Title != "bob's" || len(msgs) != 1 || msgs[0].Text() != "bob's secret" {
		t.Errorf("Got(bob's thread) = %q with %d messages; want it untouched", th.Title, len(msgs))
	}
	for _, res := range []string{"alice", "bob"} {
		if p := must(e.mem.ListThreads(t.Context(), res, memory.ListThreadsOptions{})); p.Total != 1 {
			t.Errorf("Got(%s's threads) = %d; want 1: nothing made", res, p.Total)
		}
	}
	if n := model.Calls(); n != 0 {
		t.Errorf("Got(model calls) = %d; want 0", n)
	}
}

// A user's own routes work without naming the resource, or naming it.
func TestUsersOwnThreads(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "Hi Alice."})
	model.RepeatLast = true
	e := usersEnv(t, model)
	alice := bearer(userToken(t, "alice"))
	status, body := e.do("GET", "/api/memory/threads?agentId=support", nil, alice...)
	list := wantStatus(t, "list", status, body, 200)
	if th := list["threads"].([]any); len(th) != 1 || th[0].(map[string]any)["id"] != "alice-1" {
		t.Fatalf("Got(alice's list) = %v; want alice-1 only", list)
	}
	status, body = e.do("GET", "/api/memory/threads/alice-1?resourceId=alice", nil, alice...)
	wantStatus(t, "get naming herself", status, body, 200)
	status, body = e.do("GET", "/api/memory/threads/alice-1/messages", nil, alice...)
	if v := wantStatus(t, "messages", status, body, 200); v["total"] != float64(1) {
		t.Errorf("Got(messages) = %v; want 1", v)
	}
	status, body = e.do("POST", "/api/memory/threads?agentId=support", `{"title":"Mine"}`, alice...)
	if v := wantStatus(t, "create", status, body, 200); v["resourceId"] != "alice" {
		t.Errorf("Got(created) = %v; want alice's", v)
	}
	// A generate with no resource acts for the token's, in a new thread.
	status, body = e.do("POST", "/api/agents/support/generate", `{"messages":"hello","memory":{"thread":"alice-new"}}`, alice...)
	if v := wantStatus(t, "generate", status, body, 200); v["resourceId"] != "alice" || v["text"] != "Hi Alice." {
		t.Errorf("Got(generate) = %v; want alice's run", v)
	}
	if th, err := e.mem.GetThread(t.Context(), "alice", "alice-new"); err != nil || th.ResourceID != "alice" {
		t.Errorf("Got(new thread) = %+v, %v; want it alice's", th, err)
	}
	// A run without a thread acts for her too: her sandbox, not one of a
	// resource she could name.
	status, body = e.do("POST", "/api/agents/support/generate", `{"messages":"no thread"}`, alice...)
	if v := wantStatus(t, "generate without a thread", status, body, 200); v["resourceId"] != "alice" {
		t.Errorf("Got(generate without a thread) resourceId %v; want alice", v["resourceId"])
	}
	status, body = e.do("PATCH", "/api/memory/threads/alice-1", `{"title":"Renamed"}`, alice...)
	wantStatus(t, "update", status, body, 200)
	status, body = e.do("DELETE", "/api/memory/threads/alice-1", nil, alice...)
	wantStatus(t, "delete", status, body, 200)

	// The shared token stays trusted beside users' tokens: a backend reads
	// bob's thread by its id alone.
	status, body = e.do("GET", "/api/memory/threads/bob-1", nil, bearer("backend-secret")...)
	if v := wantStatus(t, "backend get", status, body, 200); v["resourceId"] != "bob" {
		t.Errorf("Got(backend get) = %v; want bob's thread", v)
	}
}

// Tokens that are not valid are 401 {error} on every route, before
// anything runs.
func TestUsersBadTokens(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := usersEnv(t, model)
	wrongKey := must(jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "alice", "aud": "keel", "exp": time.Now().Add(time.Hour).Unix()}).
		SignedString([]byte("a-different-secret-of-32-bytes-or-more")))
	none := must(jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "alice", "aud": "keel", "exp": time.Now().Add(time.Hour).Unix()}).
		SignedString(jwt.UnsafeAllowNoneSignatureType))
	tests := []struct {
		name   string
		header []string
		substr string
	}{
		{"no token", nil, "missing token"},
		{"not bearer", []string{"Authorization", "Basic YWxpY2U6cHc="}, "missing token"},
		{"alg none", bearer(none), "signing method none is invalid"},
		{"wrong key", bearer(wrongKey), "signature is invalid"},
		{"expired", bearer(userToken(t, "alice", "exp", time.Now().Add(-time.Hour).Unix())), "expired"},
		{"not yet valid", bearer(userToken(t, "alice", "nbf", time.Now().Add(time.Hour).Unix())), "not valid yet"},
		{"wrong audience", bearer(userToken(t, "alice", "aud", "billing")), "invalid audience"},
		{"malformed", bearer("garbage.garbage"), "malformed"},
		{"no subject", bearer(userToken(t, "alice", "sub", nil)), "claim naming the caller"},
		{"subject not an id", bearer(userToken(t, "alice smith")), "not a valid id"},
	}
	routes := []struct{ method, path, body string }{
		{"GET", "/api/agents", ""},
		{"GET", "/api/memory/threads", ""},
		{"GET", "/api/memory/threads/alice-1", ""},
		{"DELETE", "/api/memory/threads/alice-1", ""},
		{"POST", "/api/agents/support/generate", `{"messages":"hi","memory":{"thread":"alice-1"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, rt := range routes {
				var body any
				if rt.body != "" {
					body = rt.body
				}
				resp := e.send(rt.method, rt.path, body, tt.header...)
				b := must(readAll(resp))
				v := wantError(t, rt.method+" "+rt.path, resp.StatusCode, b, 401, tt.substr)
				if len(v) != 1 || resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("Got(%s %s) = %s, WWW-Authenticate %q; want {error} and the header", rt.method, rt.path, b, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
	if n := model.Calls(); n != 0 {
		t.Errorf("Got(model calls) = %d; want 0", n)
	}
	if msgs := storedMessages(t, e.mem, "alice", "alice-1"); len(msgs) != 1 {
		t.Errorf("Got(alice's messages) = %d; want 1, nothing stored", len(msgs))
	}
	// Probes need no token.
	status, body := e.do("GET", "/health", nil)
	wantStatus(t, "health", status, body, 200)
}

// rsaJWK writes an RSA public key as a JWK.
func rsaJWK(kid string, k *rsa.PublicKey) map[string]any {
	return map[string]any{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes())}
}

// An issuer rotates its keys; the server, its key set served over HTTP,
// takes tokens of the new key without a restart, having fetched the set
// once per key.
func TestUsersJWKSRotation(t *testing.T) {
	k1, k2 := must(rsa.GenerateKey(rand.Reader, 2048)), must(rsa.GenerateKey(rand.Reader, 2048))
	var mu sync.Mutex
	keys := []map[string]any{rsaJWK("k1", &k1.PublicKey)}
	fetches := 0
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fetches++
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	}))
	defer idp.Close()
	// MinRefetch is short so that the rotation shows at once; its rate
	// limit has its own test in jwtauth.
	v := must(jwtauth.New(jwtauth.Options{JWKS: idp.URL, MinRefetch: time.Nanosecond, Logger: quietLogger()}))
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Users = v }})
	tok := func(kid string, k *rsa.PrivateKey) []string {
		tk := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"sub": "carol", "exp": time.Now().Add(time.Hour).Unix()})
		tk.Header["kid"] = kid
		return bearer(must(tk.SignedString(k)))
	}
	for i := range 3 {
		status, body := e.do("GET", "/api/memory/threads", nil, tok("k1", k1)...)
		wantStatus(t, fmt.Sprintf("k1 token, request %d", i), status, body, 200)
	}
	mu.Lock()
	keys = []map[string]any{rsaJWK("k2", &k2.PublicKey)}
	mu.Unlock()
	status, body := e.do("GET", "/api/memory/threads", nil, tok("k2", k2)...)
	wantStatus(t, "k2 token after rotation", status, body, 200)
	status, body = e.do("GET", "/api/memory/threads", nil, tok("k2", k2)...)
	wantStatus(t, "k2 token again", status, body, 200)
	status, body = e.do("GET", "/api/memory/threads", nil, tok("k1", k1)...)
	wantError(t, "retired k1 token", status, body, 401, "no RS256 key with kid")
	mu.Lock()
	defer mu.Unlock()
	// One fetch for k1, one when k2 first came, one when the retired k1
	// was asked for again.
	if fetches != 3 {
		t.Errorf("Got(JWKS fetches) = %d; want 3 for 6 requests", fetches)
	}
}

// A key set that cannot be fetched makes tokens uncheckable: 503, which
// the client tries again, not 401, which would send the user to log in.
func TestUsersKeysUnavailable(t *testing.T) {
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	defer idp.Close()
	v := must(jwtauth.New(jwtauth.Options{JWKS: idp.URL, Logger: quietLogger()}))
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Users = v }})
	k := must(rsa.GenerateKey(rand.Reader, 2048))
	tok := must(jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"sub": "carol", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(k))
	status, body := e.do("GET", "/api/memory/threads", nil, bearer(tok)...)
	wantError(t, "keys unavailable", status, body, 503, "cannot be checked")
}

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	var b strings.Builder
	_, err := io.Copy(&b, resp.Body)
	return []byte(b.String()), err
}

// The remembered refusals serve every user: a user may read them, not
// forget them; the shared token may.
func TestUsersRefusals(t *testing.T) {
	mem := memory.NewInMemory()
	now := time.Now()
	if err := mem.RecordRefusal(t.Context(), memory.Refusal{Provider: "google", Model: "gemini-2.5-flash", MediaType: xlsx,
		LearnedAt: now, ExpiresAt: now.Add(time.Hour), Status: 400}); err != nil {
		t.Fatal(err)
	}
	rr := must(processor.NewRememberedRefusals(mem, processor.RefusalOptions{}))
	v := must(jwtauth.New(jwtauth.Options{Secret: jwtSecret, Audience: []string{"keel"}, Logger: quietLogger()}))
	e := newEnv(t, envOptions{model: keeltest.NewModel(), mem: mem, config: func(c *server.Config) {
		c.Users, c.Token = v, "backend-secret"
		withRefusals(rr)(c)
	}})
	alice := bearer(userToken(t, "alice"))
	status, body := e.do("GET", "/api/keel/refusals", nil, alice...)
	wantStatus(t, "alice lists", status, body, 200)
	status, body = e.do("DELETE", "/api/keel/refusals?all=true", nil, alice...)
	wantError(t, "alice forgets", status, body, 403, "shared token")
	if list := must(rr.List(t.Context())); len(list) != 1 {
		t.Fatalf("Got(refusals after alice's DELETE) = %d; want 1, untouched", len(list))
	}
	status, body = e.do("DELETE", "/api/keel/refusals?all=true", nil, bearer("backend-secret")...)
	wantStatus(t, "backend forgets", status, body, 200)
}
