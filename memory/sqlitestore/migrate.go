package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/keel-go/keel/memory/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrate brings the schema to the newest version. It runs in one
// IMMEDIATE transaction, so processes opening a new file at once apply
// each migration once, and a failed migration leaves the previous schema.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := sqlstore.LoadMigrations(migrations, "migrations")
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return err
	}
	pending, err := sqlstore.Pending(ms, current)
	if err != nil {
		return err
	}
	for _, m := range pending {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, m.Version); err != nil {
			return err
		}
	}
	return tx.Commit()
}
