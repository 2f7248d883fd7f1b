package sqlitestore_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/storetest"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// refusingModel refuses any file it cannot read, as the providers' SDKs do
// before sending, and otherwise answers with answer.
func refusingModel(answer string) *keeltest.Model {
	m := keeltest.NewModel(keeltest.Reply{Respond: func(req *keel.Request) keeltest.Reply {
		for _, msg := range req.Messages {
			for _, p := range msg.Parts {
				if f, ok := p.(keel.FilePart); ok && !keel.IsReadable(f.MediaType) {
					return keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + f.MediaType}}
				}
			}
		}
		return keeltest.Reply{Text: answer}
	}})
	m.RepeatLast = true
	return m
}

func newAgent(t *testing.T, model keel.Model, store memory.Store) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("agent.New() = %v; want no error", err)
	}
	return a
}

// storedFiles returns the file parts stored in the thread.
func storedFiles(t *testing.T, s memory.Store) []keel.FilePart {
	t.Helper()
	page, err := s.ListMessages(context.Background(), "alice", "thread-1", memory.ListMessagesOptions{})
	if err != nil {
		t.Fatalf("ListMessages() = %v; want no error", err)
	}
	var files []keel.FilePart
	for _, m := range page.Messages {
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok {
				files = append(files, f)
			}
		}
	}
	return files
}

// TestAgentKeepsRefusedFileAcrossRestart runs an agent on the SQLite store
// with a file its model refuses, restarts (a new store on the same file,
// a new agent), and runs a second turn: the stored thread still holds the
// file, byte for byte, and the second turn's history loads it.
func TestAgentKeepsRefusedFileAcrossRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keel.db")
	sheet := storetest.Bytes(42, 300<<10)
	opts := []agent.RunOption{agent.WithThread("thread-1"), agent.WithResource("alice")}

	s1 := open(t, path)
	first := refusingModel("I could not open the spreadsheet.")
	input := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise leads.xlsx"},
		keel.FilePart{Data: sheet, MediaType: xlsxType, Filename: "leads.xlsx"},
	}}
	res, err := newAgent(t, first, s1).Generate(ctx, []keel.Message{input}, opts...)
	if err != nil {
		t.Fatalf("Generate(turn 1) = %v; want no error", err)
	}
	if res.Text != "I could not open the spreadsheet." {
		t.Errorf("Got(turn 1 text) = %q; want the answer after the refusal", res.Text)
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := open(t, path)
	files := storedFiles(t, s2)
	if len(files) != 1 || files[0].Filename != "leads.xlsx" || files[0].MediaType != xlsxType || !bytes.Equal(files[0].Data, sheet) {
		t.Fatalf("Got(stored files after restart) = %d files; want leads.xlsx with its %d bytes", len(files), len(sheet))
	}

	second := refusingModel("Still no spreadsheet, but here is the rest.")
	res, err = newAgent(t, second, s2).Generate(ctx, []keel.Message{keel.UserText("And the rest?")}, opts...)
	if err != nil {
		t.Fatalf("Generate(turn 2) = %v; want no error", err)
	}
	if res.Text != "Still no spreadsheet, but here is the rest." {
		t.Errorf("Got(turn 2 text) = %q; want the second answer", res.Text)
	}
	prompts := second.Prompts()
	if len(prompts) == 0 {
		t.Fatal("Got(turn 2 model calls) = 0; want at least 1")
	}
	found := false
	for _, m := range prompts[0] {
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok && f.Filename == "leads.xlsx" && bytes.Equal(f.Data, sheet) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("Got(turn 2 first prompt) without leads.xlsx; want the stored file loaded from the thread")
	}
	if files := storedFiles(t, s2); len(files) != 1 || !bytes.Equal(files[0].Data, sheet) {
		t.Errorf("Got(stored files after turn 2) = %d files; want leads.xlsx unchanged", len(files))
	}
}
