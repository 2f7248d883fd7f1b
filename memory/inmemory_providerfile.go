package memory

import (
	"context"
	"fmt"

	"github.com/keel-go/keel"
)

// providerFileKey names an entry of the in-memory [ProviderFiles].
type providerFileKey struct{ scope, sha256 string }

// ProviderFile implements [ProviderFiles.ProviderFile].
func (s *InMemory) ProviderFile(ctx context.Context, scope, sha256 string) (keel.ProviderFile, bool, error) {
	if err := ctx.Err(); err != nil {
		return keel.ProviderFile{}, false, err
	}
	if err := CheckProviderFileKey(scope, sha256); err != nil {
		return keel.ProviderFile{}, false, fmt.Errorf("memory: provider file: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	f, ok := s.providerFiles[providerFileKey{scope, sha256}]
	return f, ok, nil
}

// SaveProviderFile implements [ProviderFiles.SaveProviderFile].
func (s *InMemory) SaveProviderFile(ctx context.Context, scope, sha256 string, f keel.ProviderFile) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := CheckProviderFile(scope, sha256, f)
	if err != nil {
		return fmt.Errorf("memory: save provider file: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.providerFiles[providerFileKey{scope, sha256}] = f
	return nil
}

// ForgetProviderFile implements [ProviderFiles.ForgetProviderFile].
func (s *InMemory) ForgetProviderFile(ctx context.Context, scope, sha256 string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := CheckProviderFileKey(scope, sha256); err != nil {
		return false, fmt.Errorf("memory: forget provider file: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := providerFileKey{scope, sha256}
	_, ok := s.providerFiles[k]
	delete(s.providerFiles, k)
	return ok, nil
}
