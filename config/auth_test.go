package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/memory"
)

const authFile = `server:
  auth:
    tokenEnv: BACKEND_TOKEN
    jwt:
      secretEnv: APP_JWT_SECRET
      issuer: https://auth.example.com
      audience: [keel, keel-dev]
      resourceClaim: uid
      leeway: 10s
  cors:
    origins: [https://app.example.com, "http://localhost:3000"]
agents:
  - id: a
    lastMessages: 20
    generateTitle: true
  - id: all
    lastMessages: false
  - id: zero
    lastMessages: 0
  - id: default
`

func env(vars ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(vars); i += 2 {
			if vars[i] == k {
				return vars[i+1]
			}
		}
		return ""
	}
}

func TestParseAuthAndWindow(t *testing.T) {
	f, err := config.Parse([]byte(authFile), "keel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := build(t, f, config.BuildOptions{Memory: memory.NewInMemory()})
	for i, want := range []int{20, agent.AllMessages, agent.AllMessages, agent.DefaultLastMessages} {
		if got := b.Agents[i].Config().LastMessages; got != want {
			t.Errorf("Got(agent %s LastMessages) = %d; want %d", b.Agents[i].ID(), got, want)
		}
	}
	if !b.Agents[0].Config().GenerateTitle || b.Agents[1].Config().GenerateTitle {
		t.Errorf("Got(GenerateTitle) = %v, %v; want on for a only", b.Agents[0].Config().GenerateTitle, b.Agents[1].Config().GenerateTitle)
	}

	auth, err := f.Server.ResolveAuth(env("BACKEND_TOKEN", " backend ", "APP_JWT_SECRET", "0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	j := auth.JWT
	if auth.Token != "backend" || auth.TokenEnv != "BACKEND_TOKEN" || j == nil || string(j.Secret) != "0123456789abcdef0123456789abcdef" ||
		j.Issuer != "https://auth.example.com" || strings.Join(j.Audience, ",") != "keel,keel-dev" || j.ResourceClaim != "uid" ||
		j.Leeway != 10*time.Second || auth.JWTSecretEnv != "APP_JWT_SECRET" {
		t.Errorf("Got(ResolveAuth) = %+v, jwt %+v; want the file's settings and the variables' secrets", auth, j)
	}
	if got := strings.Join(auth.CORSOrigins, " "); got != "https://app.example.com http://localhost:3000" || auth.CORSFrom != "server.cors.origins" {
		t.Errorf("Got(CORS) = %q from %s; want the file's origins", got, auth.CORSFrom)
	}
	// KEEL_CORS_ORIGINS replaces the file's origins.
	auth, err = f.Server.ResolveAuth(env("APP_JWT_SECRET", "0123456789abcdef0123456789abcdef", "KEEL_CORS_ORIGINS", "https://a.example.com, https://b.example.com"))
	if err != nil || strings.Join(auth.CORSOrigins, " ") != "https://a.example.com https://b.example.com" || auth.CORSFrom != config.CORSOriginsEnv {
		t.Errorf("Got(CORS from the variable) = %v from %s, %v; want a and b", auth.CORSOrigins, auth.CORSFrom, err)
	}
}

func TestResolveAuth(t *testing.T) {
	cases := []struct {
		name, yaml string
		env        []string
		token      string
		jwt        bool
		jwks       string
		err        string
	}{
		{"none", "", nil, "", false, "", ""},
		{"shared token", "", []string{"KEEL_API_TOKEN", "t"}, "t", false, "", ""},
		{"old tokenEnv", "server: {tokenEnv: OLD}\n", []string{"OLD", "t"}, "t", false, "", ""},
		{"JWT from the secret alone", "", []string{"KEEL_JWT_SECRET", "s"}, "", true, "", ""},
		{"JWT from KEEL_JWKS_URL alone", "", []string{"KEEL_JWKS_URL", "https://auth.example.com/jwks"}, "", true, "https://auth.example.com/jwks", ""},
		{"file's jwks wins", "server: {auth: {jwt: {jwks: /etc/keel/jwks.json}}}\n", []string{"KEEL_JWKS_URL", "https://x"}, "", true, "/etc/keel/jwks.json", ""},
		{"both", "", []string{"KEEL_API_TOKEN", "t", "KEEL_JWT_SECRET", "s"}, "t", true, "", ""},
		{"jwt asked for without a key", "server: {auth: {jwt: {issuer: x}}}\n", nil, "", false, "", "set KEEL_JWT_SECRET"},
		{"bad KEEL_CORS_ORIGINS", "", []string{"KEEL_CORS_ORIGINS", "app.example.com"}, "", false, "", "KEEL_CORS_ORIGINS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tc.yaml+"agents:\n  - id: a\n"), "")
			if err != nil {
				t.Fatal(err)
			}
			auth, err := f.Server.ResolveAuth(env(tc.env...))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Got(ResolveAuth) = %+v, %v; want an error saying %q", auth, err, tc.err)
				}
				return
			}
			if err != nil || auth.Token != tc.token || (auth.JWT != nil) != tc.jwt || tc.jwt && auth.JWT.JWKS != tc.jwks {
				t.Fatalf("Got(ResolveAuth) = %+v (jwt %+v), %v; want token %q, jwt %v, jwks %q", auth, auth.JWT, err, tc.token, tc.jwt, tc.jwks)
			}
		})
	}
}

func TestParseAuthErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		line       int
		want       string
	}{
		{"secret in the file", "server:\n  auth:\n    jwt:\n      secretEnv: 'hunter2 hunter2'\n", 4, "not the secret itself"},
		{"token in auth", "server:\n  auth: {tokenEnv: 'a b'}\n", 2, "not the token itself"},
		{"two token variables", "server:\n  tokenEnv: A\n  auth: {tokenEnv: B}\n", 3, "disagree"},
		{"plain http jwks", "server:\n  auth:\n    jwt:\n      jwks: http://auth.example.com/jwks\n", 4, "use https"},
		{"negative leeway", "server:\n  auth:\n    jwt: {leeway: -1s}\n", 3, "cannot be negative"},
		{"unknown jwt field", "server:\n  auth:\n    jwt:\n      secret: abc\n", 4, `unknown field "secret"; the fields here are: secretEnv`},
		{"bad origin", "server:\n  cors:\n    origins:\n      - https://ok.example.com\n      - app.example.com/x\n", 5, "scheme://host"},
		{"negative lastMessages", "agents:\n  - id: a\n    lastMessages: -3\n", 3, "lastMessages \"-3\""},
		{"true lastMessages", "agents:\n  - id: a\n    lastMessages: true\n", 3, "or false"},
		{"list lastMessages", "agents:\n  - id: a\n    lastMessages: [1]\n", 3, "write a number of messages"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.yaml
			if !strings.Contains(doc, "agents:") {
				doc += "agents:\n  - id: a\n"
			}
			_, err := config.Parse([]byte(doc), "conf.yaml")
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || ce.Line != tc.line {
				t.Fatalf("Got(Parse) = %v (line %d); want line %d saying %q", err, lineOf(ce), tc.line, tc.want)
			}
		})
	}
}
