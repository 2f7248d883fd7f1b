package main_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// slowGemini is a Gemini endpoint that answers every call after delay,
// "answer to " and the last text of the request.
func slowGemini(t *testing.T, delay time.Duration) *googletest.Server {
	t.Helper()
	return googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
		body, err := r.Decode()
		last := ""
		if err == nil && len(body.Contents) > 0 {
			// The last text part: two user messages in a row (one whose
			// turn was cut) come as one content of two parts.
			for _, p := range body.Contents[len(body.Contents)-1].Parts {
				if p.Text != "" {
					last = p.Text
				}
			}
		}
		text := "answer to " + last
		if r.Stream {
			return providertest.Reply{Body: googletest.StreamTextBody(text), ContentType: "text/event-stream", Delay: delay}, true
		}
		return providertest.Reply{Body: googletest.TextBody(text), Delay: delay}, true
	}})
}

// sendMessage sends text to thread t1 of resource r as Mastra Studio
// does, and returns the status.
func sendMessage(t *testing.T, url, thread, text string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"message": map[string]any{"contents": text}, "resourceId": "r", "threadId": thread})
	return call(t, "POST", url+"/api/agents/assistant/send-message", "", string(body))
}

// thread returns a thread's messages as role:text, oldest first.
func thread(t *testing.T, url, id string) []string {
	t.Helper()
	code, body := call(t, "GET", url+"/api/memory/threads/"+id+"/messages?resourceId=r&fileData=false", "", "")
	if code == http.StatusNotFound {
		return nil
	}
	var page struct {
		Messages []struct {
			Role    string
			Content struct{ Content string }
		}
	}
	if err := json.Unmarshal(body, &page); code != 200 || err != nil {
		t.Fatalf("Got(messages of %s) = %d %s; want them", id, code, body)
	}
	var out []string
	for _, m := range page.Messages {
		out = append(out, m.Role+":"+m.Content.Content)
	}
	return out
}

// waitThread waits until id's messages are want, for a minute.
func waitThread(t *testing.T, url, id string, want []string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := thread(t, url, id)
		if strings.Join(got, "|") == strings.Join(want, "|") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Got(thread %s) = %q; want %q", id, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Every message keel serve accepted from Mastra Studio is kept when it is
// stopped (SIGTERM) or killed (SIGKILL) while turns run and wait: the
// next keel serve on the store runs the ones still queued, in order.
func TestAcceptedMessagesSurvive(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			model := slowGemini(t, 1500*time.Millisecond)
			s := startServe(t, dir, geminiEnv(model), loopback...)
			var accepted []string
			for i := 1; i <= 5; i++ {
				text := fmt.Sprintf("message %d", i)
				if code, body := sendMessage(t, s.url, "t1", text); code != 200 || !strings.Contains(string(body), `"accepted":true`) {
					t.Fatalf("Got(send %s) = %d %s; want accepted", text, code, body)
				}
				accepted = append(accepted, text)
			}
			time.Sleep(300 * time.Millisecond) // the first turn waits for its model
			if err := s.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				t.Fatalf("Got(keel serve after %v) still running after 30 s; want it gone", sig)
			}

			again := startServe(t, dir, geminiEnv(slowGemini(t, 0)), loopback...)
			defer again.stop(t)
			// The first turn was running: its message is kept (answered
			// after a SIGTERM, within the grace; not after a SIGKILL), and
			// the four that waited are run in order.
			var want []string
			for i, text := range accepted {
				want = append(want, "user:"+text)
				if i > 0 || sig == syscall.SIGTERM {
					want = append(want, "assistant:answer to "+text)
				}
			}
			waitThread(t, again.url, "t1", want)
			if !strings.Contains(again.Stderr(), "running queued turns") && len(accepted) > 1 {
				t.Errorf("Got(restart's log) = %s; want it to say it runs the queued turns", again.Stderr())
			}
		})
	}
}

// vmRSS reads a process's resident set size and its peak, in MiB.
func vmRSS(t *testing.T, pid int) (rss, peak int) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc/PID/status to read memory from: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.Atoi(f[1])
			if f[0] == "VmRSS:" {
				rss = kb >> 10
			} else {
				peak = kb >> 10
			}
		}
	}
	return rss, peak
}

// Ten messages of 36 MiB sent to a busy thread wait in the store, not in
// keel's memory: one runs, eight wait (the thread's bound), the tenth is
// 409, and keel's peak memory stays far from the gigabytes an unbounded
// queue in memory took.
func TestQueuedMessagesBoundMemory(t *testing.T) {
	model := slowGemini(t, time.Minute) // the first turn holds the thread
	s := startServe(t, t.TempDir(), geminiEnv(model), loopback...)
	file := base64.StdEncoding.EncodeToString(make([]byte, 27<<20)) // 36 MiB of base64
	codes := map[int]int{}
	for i := 1; i <= 10; i++ {
		// Written out rather than by json.Marshal, which takes seconds to
		// look through 36 MiB for characters to escape under -race: base64
		// has none.
		body := `{"resourceId":"r","threadId":"big","message":{"contents":[{"type":"text","text":"file ` + strconv.Itoa(i) +
			`"},{"type":"file","data":"data:application/pdf;base64,` + file + `","mediaType":"application/pdf"}]}}`
		if i == 1 && !json.Valid([]byte(body)) {
			t.Fatal("the message's JSON is not valid")
		}
		code, out := call(t, "POST", s.url+"/api/agents/assistant/send-message", "", body)
		if code != 200 && code != http.StatusConflict {
			t.Fatalf("Got(send %d) = %d %.200s; want 200 or 409", i, code, out)
		}
		codes[code]++
		if i == 1 {
			// Its turn leaves the queue once its message is stored.
			deadline := time.Now().Add(time.Minute)
			for len(thread(t, s.url, "big")) == 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	rss, peak := vmRSS(t, s.cmd.Process.Pid)
	t.Logf("keel serve after 10 messages of 36 MiB: RSS %d MiB, peak %d MiB; %d accepted, %d refused", rss, peak, codes[200], codes[409])
	if codes[200] != 9 || codes[409] != 1 {
		t.Errorf("Got(answers) = %v; want 9 accepted (one running, eight waiting) and one 409", codes)
	}
	if peak > 1024 {
		t.Errorf("Got(peak RSS) = %d MiB; want under 1 GiB", peak)
	}
}

// subscribeKeel opens Studio's subscription to a thread and returns its
// data chunks as they come.
func subscribeKeel(t *testing.T, url, thread string) <-chan map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/api/agents/assistant/threads/subscribe",
		strings.NewReader(`{"resourceId":"r","threadId":"`+thread+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("Got(subscribe) = %v %v; want 200", resp, err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	if !sc.Scan() || sc.Text() != ": connected" {
		t.Fatalf("Got(first line of the subscription) = %q; want : connected", sc.Text())
	}
	out := make(chan map[string]any, 256)
	go func() {
		defer resp.Body.Close()
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var v map[string]any
				if json.Unmarshal([]byte(data), &v) == nil {
					out <- v
				}
			}
		}
	}()
	return out
}

// nextTurn reads chunks up to a finish, and returns their types and text.
func nextTurn(t *testing.T, chunks <-chan map[string]any) (types []string, text string) {
	t.Helper()
	for {
		select {
		case c := <-chunks:
			types = append(types, fmt.Sprint(c["type"]))
			if c["type"] == "text-delta" {
				text += fmt.Sprint(c["payload"].(map[string]any)["text"])
			}
			if c["type"] == "finish" {
				return types, text
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("Got(subscription) %v then nothing for 30 s; want a turn's chunks up to finish", types)
		}
	}
}

// Two keel serve processes on one PostgreSQL: a Studio subscriber on the
// second sees the turns sent to the first (by /generate, /stream and
// send-message), and two turns sent at once to the two servers on one
// thread are stored one after the other, never interleaved.
func TestTwoServersOnePostgres(t *testing.T) {
	url := pgtest.Start(t)
	model := slowGemini(t, 400*time.Millisecond)
	one := startServe(t, t.TempDir(), geminiEnv(model, "KEEL_DATABASE_URL="+url), loopback...)
	defer one.stop(t)
	two := startServe(t, t.TempDir(), geminiEnv(model, "KEEL_DATABASE_URL="+url), loopback...)
	defer two.stop(t)

	chunks := subscribeKeel(t, two.url, "live")
	if code, body := call(t, "POST", one.url+"/api/agents/assistant/generate", "", `{"memory":{"thread":"live","resource":"r"},"messages":"by generate"}`); code != 200 {
		t.Fatalf("Got(generate on server 1) = %d %s; want 200", code, body)
	}
	if types, text := nextTurn(t, chunks); types[0] != "start" || text != "answer to by generate" {
		t.Errorf("Got(server 2's subscriber, a generate turn on server 1) = %v %q; want its chunks", types, text)
	}
	if code, body := call(t, "POST", one.url+"/api/agents/assistant/stream", "", `{"memory":{"thread":"live","resource":"r"},"messages":"by stream"}`); code != 200 {
		t.Fatalf("Got(stream on server 1) = %d %s; want 200", code, body)
	}
	if _, text := nextTurn(t, chunks); text != "answer to by stream" {
		t.Errorf("Got(server 2's subscriber, a stream turn on server 1) = %q; want its text", text)
	}
	if code, body := sendMessage(t, one.url, "live", "by studio"); code != 200 {
		t.Fatalf("Got(send-message on server 1) = %d %s; want accepted", code, body)
	}
	if types, text := nextTurn(t, chunks); len(types) < 2 || types[1] != "data-user-message" || text != "answer to by studio" {
		t.Errorf("Got(server 2's subscriber, a Studio turn on server 1) = %v %q; want the user's message after the start, and the answer", types, text)
	}

	var wg sync.WaitGroup
	for i, s := range []*served{one, two} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := fmt.Sprintf("question %d", i+1)
			if code, body := call(t, "POST", s.url+"/api/agents/assistant/generate", "", `{"memory":{"thread":"order","resource":"r"},"messages":"`+q+`"}`); code != 200 {
				t.Errorf("Got(generate %q) = %d %s; want 200", q, code, body)
			}
		}()
	}
	wg.Wait()
	got := thread(t, one.url, "order")
	if len(got) != 4 || got[1] != "assistant:answer to "+strings.TrimPrefix(got[0], "user:") ||
		got[3] != "assistant:answer to "+strings.TrimPrefix(got[2], "user:") || got[0] == got[2] {
		t.Errorf("Got(thread of two turns sent at once to two servers) = %q; want user, assistant, user, assistant, each answer after its question", got)
	}
}
