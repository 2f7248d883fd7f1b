package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/keeltest"
)

// A turn run on one server reaches a Studio subscriber of its thread on
// another server sharing the PostgreSQL store, though nobody subscribes
// to the thread on the server that runs it.
func TestThreadEventsReachOtherServers(t *testing.T) {
	url := pgtest.Start(t)
	model := keeltest.NewModel(keeltest.Reply{Text: "across 3318"})
	model.RepeatLast = true
	one, two := servePG(t, url, model), servePG(t, url, model)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := must(http.NewRequestWithContext(ctx, "POST", two+"/api/agents/support/threads/subscribe",
		strings.NewReader(`{"resourceId":"r","threadId":"t1"}`)))
	resp := must(http.DefaultClient.Do(req))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Got(subscribe on the second server) = %d; want 200", resp.StatusCode)
	}
	sub := &subscription{t: t, blocks: readBlocks(resp.Body), cancel: cancel}
	if got := sub.next(); got != ": connected" {
		t.Fatalf("Got(first block) = %q; want : connected", got)
	}
	// The second server listens once its Serve has started: until then a
	// turn's chunks may pass it by, so turns run until one comes through,
	// then one more, read whole from its start.
	run := func() {
		r := must(http.Post(one+"/api/agents/support/stream", "application/json",
			strings.NewReader(`{"memory":{"thread":"t1","resource":"r"},"messages":"go"}`)))
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	deadline := time.Now().Add(15 * time.Second)
	for listening := false; !listening; {
		run()
		select {
		case b := <-sub.blocks:
			listening = b != ": ping"
		case <-time.After(time.Second):
		}
		if !listening && time.Now().After(deadline) {
			t.Fatal("Got(turns run on one server) none on the other server's subscription in 15 s; want them there")
		}
	}
	run()
	for {
		var c struct{ Type string }
		if b := sub.next(); json.Unmarshal([]byte(strings.TrimPrefix(b, "data: ")), &c) == nil && c.Type == "start" {
			break
		}
	}
	if got := chunkText(sub.turn()); got != "across 3318" {
		t.Errorf("Got(turn on the other server) = %q; want the answer", got)
	}
}
