package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/internal/cleantext"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// threadsUsage is what keel threads -h prints.
const threadsUsage = `Usage:
  keel threads list [--resource ID] [--db PATH|postgres://URL] [--json]
  keel threads show [--resource ID] [--db ...] [--json] ID
  keel threads delete [--resource ID] [--db ...] [--config keel.yaml] [--sandbox DIR] ID

list shows a resource's threads, newest first; show a thread's messages,
with each file's name, media type, size and SHA-256 (never its bytes);
delete removes a thread, its messages, and the files uploaded for it to
the sandboxes of the configuration's agents. Each opens an existing
database only, and never makes one. Run "keel threads COMMAND -h" for a
command's flags.
`

// runThreads runs keel threads list|show|delete.
func runThreads(ctx context.Context, args []string, std stdio) error {
	if len(args) == 0 {
		return usagef("use keel threads list [--resource ID], keel threads show ID or keel threads delete ID (keel threads -h says more)")
	}
	switch args[0] {
	case "list":
		return (&threadsListCmd{}).Run(ctx, args[1:], std)
	case "show":
		return (&threadsShowCmd{}).Run(ctx, args[1:], std)
	case "delete":
		return (&threadsDeleteCmd{}).Run(ctx, args[1:], std)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(std.out, threadsUsage)
		return nil
	default:
		return usagef("unknown threads command %q: use list, show or delete", args[0])
	}
}

// threadsListCmd is keel threads list.
type threadsListCmd struct {
	resource string
	asJSON   bool
	storage  storageFlags
}

// Run runs keel threads list with args.
func (c *threadsListCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel threads list", "keel threads list [flags]", std.err)
	fs.StringVar(&c.resource, "resource", defaultResource, "whose threads")
	fs.BoolVar(&c.asJSON, "json", false, "print the threads as JSON")
	c.storage.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected %q: keel threads list takes flags only", pos[0])
	}
	if !memory.ValidID(c.resource) {
		return usagef("--resource %q: use 1 to %d of A-Z a-z 0-9 . _ : -", c.resource, memory.MaxIDLength)
	}
	store, _, err := c.storage.open(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	var threads []memory.Thread
	for page := 0; ; page++ {
		p, err := store.ListThreads(ctx, c.resource, memory.ListThreadsOptions{Page: page, OrderBy: "updatedAt"})
		if err != nil {
			return fmt.Errorf("list threads: %w", err)
		}
		threads = append(threads, p.Threads...)
		if !p.HasMore {
			break
		}
	}
	if !isSet(fs, "resource") {
		// keel run's threads are "default"'s; others are not: say where.
		fmt.Fprintf(std.err, "keel threads list: threads of resource %s, keel run's; the API's and the console's belong to the resource "+
			"their requests name, Mastra Studio's to the agent's id (assistant): --resource ID lists those\n", c.resource)
	}
	if c.asJSON {
		out := make([]threadJSON, len(threads))
		for i, t := range threads {
			out[i] = toThreadJSON(t)
		}
		return writeJSON(std.out, out)
	}
	if len(threads) == 0 {
		fmt.Fprintf(std.err, "keel threads list: resource %s has no threads (keel run makes one; --resource picks another owner)\n", c.resource)
		return nil
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tTITLE")
	for _, t := range threads {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", printable(t.ID), t.UpdatedAt.Local().Format(time.DateTime), cleantext.Short(t.Title, agent.MaxTitleLength))
	}
	return tw.Flush()
}

// threadsShowCmd is keel threads show.
type threadsShowCmd struct {
	resource string
	asJSON   bool
	storage  storageFlags
}

type threadJSON struct {
	ID         string         `json:"id"`
	ResourceID string         `json:"resourceId"`
	Title      string         `json:"title"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	CreatedAt  time.Time      `json:"createdAt"`
	UpdatedAt  time.Time      `json:"updatedAt"`
}

func toThreadJSON(t memory.Thread) threadJSON {
	return threadJSON{ID: t.ID, ResourceID: t.ResourceID, Title: t.Title, Metadata: t.Metadata, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
}

type messageJSON struct {
	ID        string     `json:"id"`
	Role      keel.Role  `json:"role"`
	CreatedAt time.Time  `json:"createdAt"`
	Text      string     `json:"text"`
	Files     []fileJSON `json:"files"`
	ToolCalls []string   `json:"toolCalls,omitempty"`
	// Recoveries are what keel did on the turn, stored with it (on the
	// reply, or on the input of a run that failed).
	Recoveries []processor.Recovery `json:"recoveries,omitempty"`
}

// fileJSON describes a stored file without its bytes.
type fileJSON struct {
	Name      string `json:"name"`
	MediaType string `json:"mediaType"`
	// Size and SHA256 are those of the inline bytes; a file kept by URL
	// has URL instead.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
	URL    string `json:"url,omitempty"`
}

type showJSON struct {
	Thread   threadJSON    `json:"thread"`
	Messages []messageJSON `json:"messages"`
}

// Run runs keel threads show with args.
func (c *threadsShowCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel threads show", "keel threads show [flags] ID", std.err)
	fs.StringVar(&c.resource, "resource", defaultResource, "the thread's owner")
	fs.BoolVar(&c.asJSON, "json", false, "print the thread and its messages as JSON (files without their bytes)")
	c.storage.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("give one thread id: keel threads show ID (keel threads list shows them)")
	}
	id := pos[0]
	if !memory.ValidID(id) || !memory.ValidID(c.resource) {
		return usagef("ids are 1 to %d of A-Z a-z 0-9 . _ : -", memory.MaxIDLength)
	}
	store, _, err := c.storage.open(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	th, err := store.GetThread(ctx, c.resource, id)
	if errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("resource %s has no thread %s (keel threads list --resource %s shows its threads)", c.resource, id, c.resource)
	}
	if err != nil {
		return fmt.Errorf("get thread %s: %w", id, err)
	}
	page, err := store.ListMessages(ctx, c.resource, id, memory.ListMessagesOptions{})
	if err != nil {
		return fmt.Errorf("list messages of %s: %w", id, err)
	}
	out := showJSON{Thread: toThreadJSON(th), Messages: make([]messageJSON, len(page.Messages))}
	for i, m := range page.Messages {
		out.Messages[i] = toMessageJSON(m)
	}
	if c.asJSON {
		return writeJSON(std.out, out)
	}
	printThread(std.out, out)
	return nil
}

func toMessageJSON(m keel.Message) messageJSON {
	mj := messageJSON{ID: m.ID, Role: m.Role, CreatedAt: m.CreatedAt, Text: m.Text(), Files: []fileJSON{}}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case keel.FilePart:
			mj.Files = append(mj.Files, describeFile(p))
		case keel.ToolCallPart:
			mj.ToolCalls = append(mj.ToolCalls, p.Name)
		case keel.ToolResultPart:
			mj.Text += fmt.Sprintf("[%s result] %s", p.Name, cleantext.Short(string(p.Output), 200))
		}
	}
	// A value that is not a recovery list is someone else's metadata
	// under keel's key: shown as none rather than failing the thread.
	mj.Recoveries, _ = agent.StoredRecoveries(m)
	return mj
}

// describeFile gives a file's name, type, size and digest.
func describeFile(f keel.FilePart) fileJSON {
	fj := fileJSON{Name: f.Filename, MediaType: f.MediaType}
	data, err := f.InlineData()
	switch {
	case errors.Is(err, keel.ErrNotInline):
		fj.URL = f.URL
	case err != nil:
		fj.SHA256 = "undecodable"
	default:
		sum := sha256.Sum256(data)
		fj.Size, fj.SHA256 = int64(len(data)), hex.EncodeToString(sum[:])
	}
	return fj
}

func printThread(w io.Writer, s showJSON) {
	t := s.Thread
	fmt.Fprintf(w, "thread %s (resource %s)", printable(t.ID), printable(t.ResourceID))
	if t.Title != "" {
		fmt.Fprintf(w, ": %s", cleantext.Short(t.Title, 80))
	}
	fmt.Fprintf(w, "\ncreated %s, updated %s, %d messages\n", t.CreatedAt.Local().Format(time.DateTime), t.UpdatedAt.Local().Format(time.DateTime), len(s.Messages))
	for _, m := range s.Messages {
		fmt.Fprintf(w, "\n[%s] %s %s\n", m.CreatedAt.Local().Format(time.DateTime), printable(string(m.Role)), printable(m.ID))
		if m.Text != "" {
			for _, line := range strings.Split(m.Text, "\n") {
				fmt.Fprintf(w, "  %s\n", printable(line))
			}
		}
		for _, name := range m.ToolCalls {
			fmt.Fprintf(w, "  calls tool %s\n", printable(name))
		}
		for _, f := range m.Files {
			name := cmp.Or(cleantext.Short(f.Name, 200), "(unnamed)")
			if f.URL != "" {
				fmt.Fprintf(w, "  file %s  %s  at %s\n", name, printable(f.MediaType), printable(f.URL))
				continue
			}
			fmt.Fprintf(w, "  file %s  %s  %d bytes  sha256 %s\n", name, printable(f.MediaType), f.Size, f.SHA256)
		}
		printRecoveries(w, "  keel: ", m.Recoveries...)
	}
}

// printable is s, one line of a longer text, without escape sequences and
// control characters, a tab as a space.
func printable(s string) string {
	return cleantext.Line(strings.ReplaceAll(s, "\t", " "), math.MaxInt)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
