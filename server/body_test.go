package server_test

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
)

// A body of exactly MaxBodyBytes is read, whether its length is announced
// or not (chunked); a byte more is a 413.
func TestBodyOfExactlyTheLimit(t *testing.T) {
	body := `{"messages":"just fits"}`
	for _, c := range []struct {
		name    string
		limit   int64
		chunked bool
		want    int
	}{
		{"announced, the limit", int64(len(body)), false, http.StatusOK},
		{"announced, a byte over", int64(len(body)) - 1, false, http.StatusRequestEntityTooLarge},
		{"chunked, the limit", int64(len(body)), true, http.StatusOK},
		{"chunked, a byte over", int64(len(body)) - 1, true, http.StatusRequestEntityTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "read it"}), limit: c.limit})
			var rd io.Reader = strings.NewReader(body)
			if c.chunked {
				rd = io.MultiReader(rd) // a reader of unknown length: sent chunked
			}
			req := must(http.NewRequest("POST", e.srv.URL+"/api/agents/support/generate", rd))
			req.Header.Set("Content-Type", "application/json")
			resp := must(e.srv.Client().Do(req))
			defer resp.Body.Close()
			if c.chunked != (req.ContentLength <= 0) {
				t.Fatalf("Got(request's length) = %d; want it announced only when not chunked", req.ContentLength)
			}
			b := must(io.ReadAll(resp.Body))
			if v := wantStatus(t, "body of "+c.name, resp.StatusCode, b, c.want); c.want == http.StatusOK && v["text"] != "read it" {
				t.Errorf("Got(text) = %v; want read it", v["text"])
			}
		})
	}
}

// With the rate rule off (a negative MinBodyRate), a body may pause for
// as long as it likes: here four times BodyGrace, too slow under any rule.
func TestBodyRateRuleOff(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "read it"}), config: func(c *server.Config) {
		c.BodyGrace, c.MinBodyRate = 50*time.Millisecond, -1
	}})
	generateAfterAPause(t, e, "body after a pause, no rule")
}

// slowModel answers as its keeltest.Model does, after d, unless its
// context ends first.
type slowModel struct {
	*keeltest.Model
	d time.Duration
}

func (m slowModel) wait(ctx context.Context) error {
	select {
	case <-time.After(m.d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m slowModel) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	if err := m.wait(ctx); err != nil {
		return nil, err
	}
	return m.Model.Generate(ctx, req)
}

func (m slowModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		if err := m.wait(ctx); err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		for ev, err := range m.Model.Stream(ctx, req) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// The rate rule ends with the body: a run that takes longer than the
// rule gave the body is not cut when the body's read deadline passes
// (net/http watches the connection after the body, and a deadline left
// there would end the request's context).
func TestBodyRateRuleEndsWithTheBody(t *testing.T) {
	// The rule allows this body 100 ms and a few more; the model takes
	// four times that.
	model := slowModel{Model: keeltest.NewModel(keeltest.Reply{Text: "took my time"}), d: 400 * time.Millisecond}
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		c.BodyGrace, c.MinBodyRate = 100*time.Millisecond, 1000
	}})
	status, body := e.do("POST", "/api/agents/support/generate", `{"messages":"take your time"}`)
	if v := wantStatus(t, "slow run after a quick body", status, body, 200); v["text"] != "took my time" {
		t.Errorf("Got(text) = %v; want took my time", v["text"])
	}
}
