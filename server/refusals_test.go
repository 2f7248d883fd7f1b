package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/server"
)

// TestRefusalsRoute lists and forgets remembered refusals over HTTP,
// behind the token.
func TestRefusalsRoute(t *testing.T) {
	mem := memory.NewInMemory()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, r := range []memory.Refusal{
		{Provider: "google", Model: "gemini-2.5-flash", MediaType: xlsx, LearnedAt: now, ExpiresAt: now.Add(time.Hour), Status: 502, Reason: "An internal error has occurred."},
		{Provider: "google", Model: "gemini-2.5-flash", MediaType: "application/zip", LearnedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(-time.Hour), Status: 400},
		{Provider: "openai", Model: "gpt-4o-mini", MediaType: xlsx, LearnedAt: now, ExpiresAt: now.Add(time.Hour), Reason: "refused by the SDK before sending: x"},
	} {
		if err := mem.RecordRefusal(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	rr, err := processor.NewRememberedRefusals(mem, processor.RefusalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{model: keeltest.NewModel(), mem: mem, token: "tok", config: withRefusals(rr)})

	status, body := e.do("GET", "/api/keel/refusals", nil)
	var listed struct{ Refusals []server.RefusalJSON }
	if err := json.Unmarshal(body, &listed); status != 200 || err != nil || len(listed.Refusals) != 3 {
		t.Fatalf("Got(GET) = %d %s; want 200 with 3 entries", status, body)
	}
	if r := listed.Refusals[0]; r.MediaType != xlsx || r.Expired || !r.LearnedAt.Equal(now) || r.Reason != "An internal error has occurred." {
		t.Errorf("Got(first entry) = %+v; want the xlsx entry, ordered by type, unexpired, with its evidence", r)
	}
	if r := listed.Refusals[1]; r.MediaType != "application/zip" || !r.Expired || r.Status != 400 {
		t.Errorf("Got(second entry) = %+v; want the expired zip entry", r)
	}

	for _, tt := range []struct{ query, why string }{
		{"", "name what to forget"},
		{"?model=gpt-4o-mini", "model needs provider"},
		{"?provider=google&mediaType=" + xlsx, "mediaType needs model"},
	} {
		status, body = e.do("DELETE", "/api/keel/refusals"+tt.query, nil)
		wantError(t, "DELETE"+tt.query, status, body, 400, tt.why)
	}
	status, body = e.do("DELETE", "/api/keel/refusals?provider=google&model=gemini-2.5-flash&mediaType="+xlsx, nil)
	if v := wantStatus(t, "DELETE one", status, body, 200); v["forgotten"] != 1.0 {
		t.Errorf("Got(DELETE one) = %s; want 1 forgotten", body)
	}
	if _, ok, _ := rr.Refused(ctx, "google", "gemini-2.5-flash", xlsx); ok {
		t.Errorf("Got(refused after DELETE) = true; want it gone at once")
	}
	status, body = e.do("DELETE", "/api/keel/refusals?provider=openai", nil)
	if v := wantStatus(t, "DELETE a provider", status, body, 200); v["forgotten"] != 1.0 {
		t.Errorf("Got(DELETE a provider) = %s; want 1 forgotten", body)
	}
	status, body = e.do("DELETE", "/api/keel/refusals?all=true", nil)
	if v := wantStatus(t, "DELETE all", status, body, 200); v["forgotten"] != 1.0 {
		t.Errorf("Got(DELETE all) = %s; want the last one forgotten", body)
	}

	e.token = ""
	status, body = e.do("GET", "/api/keel/refusals", nil)
	wantError(t, "GET without the token", status, body, 401, "token")
}

// withRefusals gives the server's agent rr: the route serves the
// agents' own.
func withRefusals(rr *processor.RememberedRefusals) func(*server.Config) {
	return func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Files.Refusals = rr
		c.Agents[0] = must(agent.New(cfg))
	}
}

// Two agents remembering through two values on one ledger: the route
// lists each entry once, forgets it from both caches, and counts it once.
func TestRefusalsRouteOfTwoAgents(t *testing.T) {
	mem := memory.NewInMemory()
	ctx := context.Background()
	now := time.Now().UTC()
	if err := mem.RecordRefusal(ctx, memory.Refusal{Provider: "google", Model: "gemini-2.5-flash", MediaType: xlsx,
		LearnedAt: now, ExpiresAt: now.Add(time.Hour), Status: 502}); err != nil {
		t.Fatal(err)
	}
	rr1 := must(processor.NewRememberedRefusals(mem, processor.RefusalOptions{}))
	rr2 := must(processor.NewRememberedRefusals(mem, processor.RefusalOptions{}))
	for _, rr := range []*processor.RememberedRefusals{rr1, rr2} {
		if _, ok, err := rr.Refused(ctx, "google", "gemini-2.5-flash", xlsx); !ok || err != nil {
			t.Fatalf("Got(refused before) = %v %v; want true, cached", ok, err)
		}
	}
	e := newEnv(t, envOptions{model: keeltest.NewModel(), mem: mem, config: func(c *server.Config) {
		withRefusals(rr1)(c)
		cfg := c.Agents[0].Config()
		cfg.ID, cfg.Files.Refusals = "other", rr2
		c.Agents = append(c.Agents, must(agent.New(cfg)))
	}})
	status, body := e.do("GET", "/api/keel/refusals", nil)
	var listed struct{ Refusals []server.RefusalJSON }
	if err := json.Unmarshal(body, &listed); status != 200 || err != nil || len(listed.Refusals) != 1 {
		t.Fatalf("Got(GET) = %d %s; want the one entry once", status, body)
	}
	status, body = e.do("DELETE", "/api/keel/refusals?all=true", nil)
	if v := wantStatus(t, "DELETE all", status, body, 200); v["forgotten"] != 1.0 {
		t.Errorf("Got(DELETE all) = %s; want 1 forgotten", body)
	}
	for i, rr := range []*processor.RememberedRefusals{rr1, rr2} {
		if _, ok, _ := rr.Refused(ctx, "google", "gemini-2.5-flash", xlsx); ok {
			t.Errorf("Got(agent %d's refused after DELETE) = true; want its cache emptied too", i+1)
		}
	}
}

func TestRefusalsRouteWithoutRefusals(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	for _, method := range []string{"GET", "DELETE"} {
		status, body := e.do(method, "/api/keel/refusals?all=true", nil)
		wantError(t, method, status, body, 501, "remembers no refusals")
	}
}
