package sqlstore

import (
	"context"
	"errors"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// ProviderFile implements [memory.ProviderFiles.ProviderFile]: one query
// on the primary key.
func (s *Store) ProviderFile(ctx context.Context, scope, sha256 string) (keel.ProviderFile, bool, error) {
	if err := ctx.Err(); err != nil {
		return keel.ProviderFile{}, false, err
	}
	if err := memory.CheckProviderFileKey(scope, sha256); err != nil {
		return keel.ProviderFile{}, false, s.fail("provider file", err)
	}
	var f keel.ProviderFile
	err := s.db.One(ctx).QueryRow(qProviderFile, scope, sha256).Scan(&f.Ref, &f.MediaType, &f.ExpiresAt)
	if errors.Is(err, ErrNoRows) {
		return keel.ProviderFile{}, false, nil
	}
	if err != nil {
		return keel.ProviderFile{}, false, s.fail("provider file", err)
	}
	f.ExpiresAt = f.ExpiresAt.UTC()
	return f, true, nil
}

// SaveProviderFile implements [memory.ProviderFiles.SaveProviderFile]:
// one upsert.
func (s *Store) SaveProviderFile(ctx context.Context, scope, sha256 string, f keel.ProviderFile) error {
	f, err := memory.CheckProviderFile(scope, sha256, f)
	if err != nil {
		return s.fail("save provider file", err)
	}
	err = s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(qSaveProviderFile, scope, sha256, f.Ref, f.MediaType, f.ExpiresAt)
		return err
	})
	return s.fail("save provider file", err)
}

// ForgetProviderFile implements [memory.ProviderFiles.ForgetProviderFile]:
// one DELETE.
func (s *Store) ForgetProviderFile(ctx context.Context, scope, sha256 string) (bool, error) {
	if err := memory.CheckProviderFileKey(scope, sha256); err != nil {
		return false, s.fail("forget provider file", err)
	}
	var n int64
	err := s.db.Write(ctx, func(tx Tx) error {
		var err error
		n, err = tx.Exec(qForgetProviderFile, scope, sha256)
		return err
	})
	return n > 0, s.fail("forget provider file", err)
}
