package sqlstore

import (
	"context"
	"fmt"

	"github.com/keel-go/keel/memory"
)

const (
	qFileDescription       = `SELECT model, sha256, text, created_at FROM keel_file_descriptions WHERE model = $1 AND sha256 = $2`
	qRecordFileDescription = `INSERT INTO keel_file_descriptions (model, sha256, text, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (model, sha256) DO NOTHING`
)

// FileDescription implements [memory.FileDescriptions.FileDescription]:
// one lookup by primary key.
func (s *Store) FileDescription(ctx context.Context, model, sha256 string) (memory.FileDescription, error) {
	if err := ctx.Err(); err != nil {
		return memory.FileDescription{}, err
	}
	ds, err := scanAll(s.db.One(ctx), qFileDescription, func(row Row) (memory.FileDescription, error) {
		var d memory.FileDescription
		err := row.Scan(&d.Model, &d.SHA256, &d.Text, &d.CreatedAt)
		d.CreatedAt = d.CreatedAt.UTC()
		return d, err
	}, model, sha256)
	if err == nil && len(ds) == 0 {
		err = fmt.Errorf("file description of %s by %s: %w", sha256, model, memory.ErrNotFound)
	}
	if err != nil {
		return memory.FileDescription{}, s.fail("file description", err)
	}
	return ds[0], nil
}

// RecordFileDescription implements
// [memory.FileDescriptions.RecordFileDescription]: one insert that
// leaves a row already there.
func (s *Store) RecordFileDescription(ctx context.Context, d memory.FileDescription) error {
	if err := d.Check(); err != nil {
		return s.fail("record file description", err)
	}
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.cfg.Now()
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(qRecordFileDescription, d.Model, d.SHA256, d.Text, d.CreatedAt.UTC())
		return err
	})
	return s.fail("record file description", err)
}
