package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/keel-go/keel/internal/cleantext"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/server"
)

// runRefusals runs keel refusals list|forget.
func runRefusals(ctx context.Context, args []string, std stdio) error {
	if len(args) == 0 {
		return usagef("use keel refusals list, or keel refusals forget PROVIDER[/MODEL] [MEDIA-TYPE] (or --all)")
	}
	if isHelp(args[0]) {
		fmt.Fprint(std.out, refusalsUsage)
		return nil
	}
	switch args[0] {
	case "list":
		return (&refusalsListCmd{}).Run(ctx, args[1:], std)
	case "forget":
		return (&refusalsForgetCmd{}).Run(ctx, args[1:], std)
	default:
		return usagef("unknown refusals command %q: use list or forget", args[0])
	}
}

const refusalsUsage = `usage: keel refusals list [--json] [--db PATH]
       keel refusals forget PROVIDER[/MODEL] [MEDIA-TYPE] | --all

What each model refused, remembered in the store so that later turns handle
such a file before the call: list shows each refusal, when, why and until
when; forget clears some or all, so that the file is sent to the model again.
keel refusals list -h and keel refusals forget -h give their flags.
`

// openLedger opens the store and its refusal ledger.
func openLedger(ctx context.Context, s *storageFlags) (processor.RefusalLedger, memory.Store, error) {
	store, where, err := s.open(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	ledger, ok := store.(processor.RefusalLedger)
	if !ok {
		store.Close()
		return nil, nil, fmt.Errorf("the store %s keeps no remembered refusals", where)
	}
	return ledger, store, nil
}

// refusalsListCmd is keel refusals list.
type refusalsListCmd struct {
	asJSON  bool
	storage storageFlags
}

// Run runs keel refusals list with args.
func (c *refusalsListCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel refusals list", "keel refusals list [flags]", std.err)
	fs.BoolVar(&c.asJSON, "json", false, "print the entries as JSON")
	c.storage.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected %q: keel refusals list takes flags only", pos[0])
	}
	ledger, store, err := openLedger(ctx, &c.storage)
	if err != nil {
		return err
	}
	defer store.Close()
	list, err := ledger.ListRefusals(ctx)
	if err != nil {
		return fmt.Errorf("list remembered refusals: %w", err)
	}
	now := time.Now()
	if c.asJSON {
		out := make([]server.RefusalJSON, len(list))
		for i, r := range list {
			out[i] = server.NewRefusalJSON(r, now)
		}
		return writeJSON(std.out, out)
	}
	if len(list) == 0 {
		fmt.Fprintln(std.err, "keel refusals: no model is remembered to refuse any file type")
		return nil
	}
	tw := tabwriter.NewWriter(std.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tMEDIA TYPE\tLEARNED\tUNTIL\tEVIDENCE")
	for _, r := range list {
		until := r.ExpiresAt.Local().Format(time.DateTime)
		if r.Expired(now) {
			until = "expired"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\n", r.Provider, r.Model, r.MediaType, r.LearnedAt.Local().Format(time.DateTime), until, evidenceOf(r))
	}
	return tw.Flush()
}

// evidenceOf says in a few words why r was learned.
func evidenceOf(r memory.Refusal) string {
	reason := cleantext.Short(r.Reason, 80)
	if r.Status == 0 {
		return reason
	}
	return fmt.Sprintf("%d %s", r.Status, reason)
}

// refusalsForgetCmd is keel refusals forget.
type refusalsForgetCmd struct {
	all     bool
	storage storageFlags
}

// Run runs keel refusals forget with args.
func (c *refusalsForgetCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel refusals forget", "keel refusals forget [flags] PROVIDER[/MODEL] [MEDIA-TYPE]", std.err)
	fs.BoolVar(&c.all, "all", false, "forget every entry")
	c.storage.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	var key memory.RefusalKey
	switch {
	case c.all && len(pos) > 0:
		return usagef("--all forgets every entry: give it no model")
	case !c.all && (len(pos) == 0 || len(pos) > 2):
		return usagef("name what to forget: keel refusals forget google/gemini-2.5-flash [MEDIA-TYPE], keel refusals forget google, or --all")
	case !c.all:
		key.Provider, key.Model, _ = strings.Cut(pos[0], "/")
		if len(pos) == 2 {
			key.MediaType = pos[1]
		}
		if key.Provider == "" || key.MediaType != "" && key.Model == "" {
			return usagef("%q: write PROVIDER/MODEL, such as google/gemini-2.5-flash, before a media type", pos[0])
		}
	}
	ledger, store, err := openLedger(ctx, &c.storage)
	if err != nil {
		return err
	}
	defer store.Close()
	n, err := ledger.ForgetRefusals(ctx, key)
	if err != nil {
		return fmt.Errorf("forget remembered refusals: %w", err)
	}
	fmt.Fprintf(std.out, "forgot %s (a running keel serve stops using %s within %s)\n",
		count(n, "remembered refusal"), them(n), processor.DefaultRefusalRefresh)
	return nil
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
