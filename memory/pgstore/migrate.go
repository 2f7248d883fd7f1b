package pgstore

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/keel-go/keel/memory/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key every keel server takes while it
// migrates ("keel" in ASCII), so that servers starting at once apply each
// migration once.
const migrationLock = 0x6b65656c

// migrate brings the schema to the newest version in one transaction
// holding the advisory lock: PostgreSQL's DDL is transactional, so a
// failed migration leaves the previous schema.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := sqlstore.LoadMigrations(migrations, "migrations")
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS keel_schema_version (version integer NOT NULL)`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM keel_schema_version`).Scan(&current); err != nil {
			return err
		}
		pending, err := sqlstore.Pending(ms, current)
		if err != nil {
			return err
		}
		for _, m := range pending {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO keel_schema_version (version) VALUES ($1)`, m.Version); err != nil {
				return err
			}
		}
		return nil
	})
}
