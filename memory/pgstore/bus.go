package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel/memory"
)

// eventsChannel is the channel every keel server LISTENs on.
const eventsChannel = "keel_events"

// maxNotify bounds what is sent in a notification itself (PostgreSQL
// takes fewer than 8000 bytes); a larger event is stored in keel_events
// and its notification is "@" and the row's id.
const maxNotify = 7000

// pruneEvery is how many stored events pass between two prunings of the
// rows older than ten minutes.
const pruneEvery = 64

// Publish implements [memory.EventBus.Publish]: every event's
// notification in one transaction, which PostgreSQL delivers at commit,
// in order. An event is "topic\npayload"; a large one is stored and
// notified by its row's id.
func (s *Store) Publish(ctx context.Context, events ...memory.Event) error {
	if len(events) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	stored := 0
	for _, ev := range events {
		if err := checkEvent(ev); err != nil {
			return fmt.Errorf("pgstore: publish: %w", err)
		}
		if len(ev.Topic)+1+len(ev.Payload) <= maxNotify {
			b.Queue(`SELECT pg_notify($1, $2)`, eventsChannel, ev.Topic+"\n"+string(ev.Payload))
			continue
		}
		stored++
		b.Queue(`WITH e AS (INSERT INTO keel_events (topic, payload) VALUES ($1, $2) RETURNING id)
			SELECT pg_notify($3, '@' || id) FROM e`, ev.Topic, ev.Payload, eventsChannel)
	}
	if after := s.stored.Add(int64(stored)); stored > 0 && after/pruneEvery != (after-int64(stored))/pruneEvery {
		b.Queue(`DELETE FROM keel_events WHERE created_at < now() - interval '10 minutes'`)
	}
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if err != nil {
		return fmt.Errorf("pgstore: publish: %w", err)
	}
	return nil
}

// checkEvent refuses what a notification or a text column cannot carry.
func checkEvent(ev memory.Event) error {
	switch {
	case ev.Topic == "" || strings.ContainsAny(ev.Topic, "\n\x00"):
		return fmt.Errorf("%w: event topic %q: want text without newline or NUL", memory.ErrInvalid, ev.Topic)
	case len(ev.Topic)+len(ev.Payload) > memory.MaxEventSize:
		return fmt.Errorf("%w: event of %d bytes is over %d", memory.ErrInvalid, len(ev.Payload), memory.MaxEventSize)
	case bytes.IndexByte(ev.Payload, 0) >= 0:
		return fmt.Errorf("%w: event payload holds NUL", memory.ErrInvalid)
	}
	return nil
}

// Listen implements [memory.EventBus.Listen] on a connection of its own,
// LISTENing on the channel every server notifies.
func (s *Store) Listen(ctx context.Context, fn func(memory.Event)) error {
	conn, err := pgx.ConnectConfig(ctx, s.db.config.ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("pgstore: listen: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+eventsChannel); err != nil {
		return fmt.Errorf("pgstore: listen: %w", err)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("pgstore: listen: %w", err)
		}
		ev, ok, err := s.event(ctx, n.Payload)
		if err != nil {
			return fmt.Errorf("pgstore: listen: %w", err)
		}
		if ok {
			fn(ev)
		}
	}
}

// event reads a notification's event: in it, or stored under the id it
// names. A stored event already pruned is skipped.
func (s *Store) event(ctx context.Context, payload string) (memory.Event, bool, error) {
	if id, ok := strings.CutPrefix(payload, "@"); ok {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return memory.Event{}, false, nil // not one of keel's
		}
		var ev memory.Event
		err = s.db.pool.QueryRow(ctx, `SELECT topic, payload FROM keel_events WHERE id = $1`, n).Scan(&ev.Topic, &ev.Payload)
		if errors.Is(err, pgx.ErrNoRows) {
			return memory.Event{}, false, nil
		}
		return ev, err == nil, err
	}
	topic, p, ok := strings.Cut(payload, "\n")
	return memory.Event{Topic: topic, Payload: []byte(p)}, ok, nil
}
